/*!
 * Orka Secure Fields: card and gift card inputs that live in iframes on Orka's origin, so that
 * card numbers, security codes and PINs never touch the merchant's page. The page sees only what
 * a field reports (empty, valid, scheme) and what submit() resolves (scheme, last 4, BIN; each
 * gift card's last 4 and amount).
 *
 *   const fields = OrkaSecureFields.mount({ orka, sessionId, style,
 *     fields: { number, expirationDate, securityCode, giftCards: [{ number, pin }, …] } })
 *   fields.on('ready' | 'change' | 'focus' | 'blur' | 'error', handler)
 *   const paid = await fields.submit({ giftCardAmounts: [500] })
 *     // { scheme, label, bin, giftCards: [{ last4, amount }] }; rejects { code, message }
 *   fields.destroy()
 */
;(function (global) {
  'use strict'

  var CARD = ['number', 'expirationDate', 'securityCode']
  var TITLES = { number: 'Card number', expirationDate: 'Card expiry date', securityCode: 'Card security code' }
  var MAX_GIFT_CARDS = 10
  var EVENTS = ['ready', 'change', 'focus', 'blur', 'error']
  var STATES = ['base', 'focus', 'invalid']
  /** What a style may set, and nothing that can load or lay out anything. */
  var STYLE_PROPERTIES = [
    'color',
    'backgroundColor',
    'caretColor',
    'fontFamily',
    'fontSize',
    'fontStyle',
    'fontVariant',
    'fontWeight',
    'letterSpacing',
    'lineHeight',
    'padding',
    'textAlign',
    'textShadow',
    'textTransform',
  ]
  var STYLE_VALUE = /^[#\w\s.,%()'"+-]{1,100}$/
  var READY_TIMEOUT_MS = 15000
  var SUBMIT_TIMEOUT_MS = 30000

  var fail = function (code, message) {
    var e = new Error(message)
    e.code = code
    return e
  }

  var element = function (target, name) {
    var el = typeof target === 'string' ? document.querySelector(target) : target
    if (!el || el.nodeType !== 1) throw new TypeError('OrkaSecureFields: fields.' + name + ' names no element')
    return el
  }

  /** Keeps the allowed properties of each state, dropping any value that could escape a declaration. */
  var cleanStyle = function (style) {
    var out = {}
    if (!style || typeof style !== 'object') return out
    STATES.forEach(function (state) {
      var given = style[state]
      if (!given || typeof given !== 'object') return
      var kept = {}
      STYLE_PROPERTIES.forEach(function (p) {
        var v = given[p]
        if (typeof v === 'string' && STYLE_VALUE.test(v) && !/url\s*\(|expression|\\/i.test(v)) kept[p] = v
      })
      out[state] = kept
    })
    return out
  }

  var randomId = function () {
    var bytes = new Uint8Array(16)
    global.crypto.getRandomValues(bytes)
    return Array.prototype.map
      .call(bytes, function (b) {
        return (b + 256).toString(16).slice(1)
      })
      .join('')
  }

  function mount(options) {
    if (!options || typeof options !== 'object') throw new TypeError('OrkaSecureFields.mount needs options')
    var orka = new URL(String(options.orka)).origin
    var sessionId = options.sessionId
    if (typeof sessionId !== 'string' || sessionId === '') throw new TypeError('OrkaSecureFields: sessionId is required')
    var targets = options.fields || {}
    // Each field as the page names it (its place in `fields`), what it takes, its container and its frame's title.
    var fields = []
    // The card's three fields go together: a page for gift cards alone names none.
    if (
      CARD.some(function (name) {
        return targets[name] != null
      })
    )
      CARD.forEach(function (name) {
        fields.push({ name: name, type: name, el: element(targets[name], name), title: TITLES[name] })
      })
    var giftCards = targets.giftCards == null ? [] : targets.giftCards
    if (!Array.isArray(giftCards) || giftCards.length > MAX_GIFT_CARDS)
      throw new TypeError('OrkaSecureFields: fields.giftCards is a list of at most ' + MAX_GIFT_CARDS + ' { number, pin }')
    giftCards.forEach(function (g, i) {
      var at = 'giftCards.' + i
      var which = i === 0 ? 'Gift card' : 'Gift card ' + (i + 1)
      fields.push({ name: at + '.number', type: 'giftCardNumber', el: element(g && g.number, at + '.number'), title: which + ' number' })
      fields.push({ name: at + '.pin', type: 'giftCardPin', el: element(g && g.pin, at + '.pin'), title: which + ' PIN' })
    })
    if (fields.length === 0) throw new TypeError('OrkaSecureFields: fields names the card fields, gift card fields, or both')
    var names = fields.map(function (f) {
      return f.name
    })
    // The first field leads: it holds the session, gathers the others' values on submit and sends them.
    var lead = names[0]

    var mountId = randomId()
    var style = cleanStyle(options.style)
    var handlers = {}
    var frames = {}
    var loaded = {} // field -> its frame said it is ready
    var ready = false
    var destroyed = false
    var pending = null

    var emit = function (type, event) {
      ;(handlers[type] || []).slice().forEach(function (h) {
        try {
          h(event)
        } catch (e) {
          setTimeout(function () {
            throw e
          })
        }
      })
    }

    var readyTimer = setTimeout(function () {
      if (!ready && !destroyed) emit('error', { code: 'fields_unavailable', message: 'The card fields did not load from ' + orka })
    }, READY_TIMEOUT_MS)

    fields.forEach(function (f) {
      var hash = new URLSearchParams({ field: f.type, name: f.name, mount: mountId, origin: location.origin, style: JSON.stringify(style) })
      if (f.name === lead) hash.set('session', sessionId)
      var iframe = document.createElement('iframe')
      iframe.src = orka + '/secure-fields/v1/field.html#' + hash.toString()
      iframe.title = f.title
      iframe.style.cssText = 'border:0;width:100%;height:2.75em;display:block;background:transparent'
      f.el.appendChild(iframe)
      frames[f.name] = iframe
    })

    var fromOurFrame = function (event) {
      if (event.origin !== orka) return null
      var data = event.data
      if (!data || typeof data !== 'object' || data.orkaSecureFields !== mountId) return null
      var name = data.field
      if (names.indexOf(name) < 0 || frames[name].contentWindow !== event.source) return null
      return data
    }

    var settle = function (data) {
      if (!pending || data.requestId !== pending.requestId) return
      var p = pending
      pending = null
      clearTimeout(p.timer)
      if (!data.error) {
        var card = data.card || { scheme: null, label: null, bin: null }
        var paid = (data.giftCards || []).map(function (g) {
          return { last4: g.last4, amount: g.amount }
        })
        return p.resolve({ scheme: card.scheme, label: card.label, bin: card.bin, giftCards: paid })
      }
      var e = fail(data.error.code, data.error.message)
      if (Array.isArray(data.error.fields)) e.fields = data.error.fields
      if (Array.isArray(data.error.details)) e.details = data.error.details
      p.reject(e)
    }

    var onMessage = function (event) {
      var data = fromOurFrame(event)
      if (!data || destroyed) return
      switch (data.type) {
        case 'ready':
          loaded[data.field] = true
          if (
            !ready &&
            names.every(function (n) {
              return loaded[n] === true
            })
          ) {
            ready = true
            clearTimeout(readyTimer)
            emit('ready', {})
          }
          break
        case 'change':
          var change = { field: data.field, empty: data.empty === true, valid: data.valid === true }
          if (data.field === 'number') change.scheme = typeof data.scheme === 'string' ? data.scheme : null
          emit('change', change)
          break
        case 'focus':
        case 'blur':
          emit(data.type, { field: data.field })
          break
        case 'submitted':
          if (data.field === lead) settle(data)
          break
      }
    }
    global.addEventListener('message', onMessage)

    var post = function (name, message) {
      message.orkaSecureFields = mountId
      frames[name].contentWindow.postMessage(message, orka)
    }

    return {
      on: function (type, handler) {
        if (EVENTS.indexOf(type) < 0) throw new TypeError('OrkaSecureFields: no event ' + type)
        if (typeof handler !== 'function') throw new TypeError('OrkaSecureFields: a handler is a function')
        ;(handlers[type] = handlers[type] || []).push(handler)
        return this
      },
      /**
       * Sends the card and the gift cards to the session from the fields themselves, each gift
       * card the shopper began for its amount in `giftCardAmounts` (minor units, by place); the
       * card may be left empty when gift cards are given. Resolves what may be shown of them.
       */
      submit: function (submitOptions) {
        var amounts = submitOptions && Array.isArray(submitOptions.giftCardAmounts) ? submitOptions.giftCardAmounts : []
        if (destroyed) return Promise.reject(fail('destroyed', 'These fields were destroyed'))
        if (!ready) return Promise.reject(fail('not_ready', 'The card fields have not loaded yet'))
        if (pending) return Promise.reject(fail('submit_in_progress', 'A submit is already in progress'))
        // Validity is the fields' to judge, on their values as they are now: what `change` said may be a keystroke behind.
        return new Promise(function (resolve, reject) {
          var requestId = randomId()
          pending = {
            requestId: requestId,
            resolve: resolve,
            reject: reject,
            timer: setTimeout(function () {
              settle({ requestId: requestId, error: { code: 'timeout', message: 'Orka did not answer in time' } })
            }, SUBMIT_TIMEOUT_MS),
          }
          post(lead, {
            type: 'submit',
            requestId: requestId,
            names: names,
            amounts: amounts.map(function (a) {
              return typeof a === 'number' ? a : null
            }),
          })
        })
      },
      /** Puts the focus in a field (`number`, `giftCards.0.pin`, …), for a page's own labels. */
      focus: function (name) {
        if (names.indexOf(name) >= 0 && !destroyed) post(name, { type: 'focus' })
      },
      destroy: function () {
        if (destroyed) return
        destroyed = true
        clearTimeout(readyTimer)
        global.removeEventListener('message', onMessage)
        if (pending) settle({ requestId: pending.requestId, error: { code: 'destroyed', message: 'These fields were destroyed' } })
        names.forEach(function (n) {
          frames[n].remove()
        })
      },
    }
  }

  global.OrkaSecureFields = Object.freeze({ version: '1', mount: mount })
})(window)
