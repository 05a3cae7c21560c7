/*!
 * Orka Secure Fields: card inputs that live in iframes on Orka's origin, so that the card number
 * and security code never touch the merchant's page. The page sees only what a field reports
 * (empty, valid, scheme) and what submit() resolves (scheme, last 4, BIN).
 *
 *   const fields = OrkaSecureFields.mount({ orka, sessionId, fields: { number, expirationDate, securityCode }, style })
 *   fields.on('ready' | 'change' | 'focus' | 'blur' | 'error', handler)
 *   const card = await fields.submit()   // { scheme, label, bin }; rejects { code, message }
 *   fields.destroy()
 */
;(function (global) {
  'use strict'

  var FIELDS = ['number', 'expirationDate', 'securityCode']
  var TITLES = { number: 'Card number', expirationDate: 'Card expiry date', securityCode: 'Card security code' }
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
    FIELDS.forEach(function (name) {
      element(targets[name], name)
    })

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

    FIELDS.forEach(function (name) {
      var hash = new URLSearchParams({ field: name, mount: mountId, origin: location.origin, style: JSON.stringify(style) })
      if (name === 'number') hash.set('session', sessionId)
      var iframe = document.createElement('iframe')
      iframe.src = orka + '/secure-fields/v1/field.html#' + hash.toString()
      iframe.title = TITLES[name]
      iframe.style.cssText = 'border:0;width:100%;height:2.75em;display:block;background:transparent'
      element(targets[name], name).appendChild(iframe)
      frames[name] = iframe
    })

    var fromOurFrame = function (event) {
      if (event.origin !== orka) return null
      var data = event.data
      if (!data || typeof data !== 'object' || data.orkaSecureFields !== mountId) return null
      var name = data.field
      if (FIELDS.indexOf(name) < 0 || frames[name].contentWindow !== event.source) return null
      return data
    }

    var settle = function (data) {
      if (!pending || data.requestId !== pending.requestId) return
      var p = pending
      pending = null
      clearTimeout(p.timer)
      if (data.card) return p.resolve({ scheme: data.card.scheme, label: data.card.label, bin: data.card.bin })
      var e = fail(data.error.code, data.error.message)
      if (Array.isArray(data.error.fields)) e.fields = data.error.fields
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
            FIELDS.every(function (n) {
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
          settle(data)
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
      /** Sends the card to the session from the fields themselves; resolves what may be shown of it. */
      submit: function () {
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
          post('number', { type: 'submit', requestId: requestId })
        })
      },
      /** Puts the focus in a field, for a page's own labels. */
      focus: function (name) {
        if (FIELDS.indexOf(name) >= 0 && !destroyed) post(name, { type: 'focus' })
      },
      destroy: function () {
        if (destroyed) return
        destroyed = true
        clearTimeout(readyTimer)
        global.removeEventListener('message', onMessage)
        if (pending) settle({ requestId: pending.requestId, error: { code: 'destroyed', message: 'These fields were destroyed' } })
        FIELDS.forEach(function (n) {
          frames[n].remove()
        })
      },
    }
  }

  global.OrkaSecureFields = Object.freeze({ version: '1', mount: mount })
})(window)
