/*!
 * One Orka Secure Fields input, inside an iframe on Orka's origin. It tells the page that framed
 * it only whether it is empty and valid (and the number's scheme); the values go to the other
 * fields of the same mount (same origin only) and, on submit, from the lead field (the one given
 * the session) to Orka.
 */
;(function () {
  'use strict'

  var params = new URLSearchParams(location.hash.slice(1))
  var field = params.get('field') // what it takes: number, giftCardPin, …
  var name = params.get('name') || field // which of the mount's fields it is: number, giftCards.0.pin, …
  var mountId = params.get('mount')
  var parentOrigin = params.get('origin')
  var session = params.get('session')
  var input = document.getElementById('field')
  var SETUP = {
    number: { label: 'Card number', autocomplete: 'cc-number', placeholder: '1234 1234 1234 1234', maxLength: 23 },
    expirationDate: { label: 'Expiry date, month and year', autocomplete: 'cc-exp', placeholder: 'MM/YY', maxLength: 5 },
    securityCode: { label: 'Security code', autocomplete: 'cc-csc', placeholder: 'CVC', maxLength: 4 },
    // A gift card is no payment card: nothing to autofill, and a PIN may hold letters.
    giftCardNumber: { label: 'Gift card number', autocomplete: 'off', placeholder: '1234 1234 1234 1234', maxLength: 23 },
    giftCardPin: { label: 'Gift card PIN', autocomplete: 'off', placeholder: 'PIN', maxLength: 64, inputMode: 'text' },
  }
  var GIFT_CARD_NAME = /^giftCards\.(\d)\.(number|pin)$/
  var giftCard = GIFT_CARD_NAME.exec(name)
  // Framed by a page (frame-ancestors limits which), for one mount: anything else stays inert.
  if (!SETUP[field] || !mountId || !parentOrigin || window.parent === window) return
  if (giftCard ? field !== (giftCard[2] === 'number' ? 'giftCardNumber' : 'giftCardPin') : name !== field) return
  var setup = SETUP[field]
  // The second gift card on is named by its place, so that each input has a name of its own.
  var label = giftCard && giftCard[1] !== '0' ? setup.label.replace('Gift card', 'Gift card ' + (Number(giftCard[1]) + 1)) : setup.label
  var COLLECT_TIMEOUT_MS = 3000
  var REQUEST_TIMEOUT_MS = 20000

  // The schemes as Orka's domain recognises them (packages/domain/src/transactions/card-data.ts).
  var SCHEMES = [
    ['amex', /^3[47]/],
    ['diners-club', /^3(0[0-5]|[68])/],
    ['jcb', /^35(2[89]|[3-8])/],
    ['visa', /^4/],
    ['mastercard', /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/],
    ['discover', /^(6011|65|64[4-9])/],
    ['unionpay', /^62/],
    ['maestro', /^(5[06-9]|6\d)/],
  ]
  var schemeOf = function (digits) {
    for (var i = 0; i < SCHEMES.length; i++) if (SCHEMES[i][1].test(digits)) return SCHEMES[i][0]
    return null
  }
  var luhn = function (digits) {
    var sum = 0
    for (var i = 0; i < digits.length; i++) {
      var d = digits.charCodeAt(digits.length - 1 - i) - 48
      if (i % 2 === 1 && (d *= 2) > 9) d -= 9
      sum += d
    }
    return sum % 10 === 0
  }
  var digitsOf = function (s) {
    return s.replace(/\D/g, '')
  }

  var scheme = null // the number's, as the number field last said
  var value = '' // what is sent: digits, or MM/YY

  var groups = function (digits) {
    var sizes =
      field === 'giftCardNumber'
        ? [4, 4, 4, 4, 3]
        : scheme === 'amex'
          ? [4, 6, 5]
          : scheme === 'diners-club' && digits.length === 14
            ? [4, 6, 4]
            : [4, 4, 4, 4, 3]
    var out = []
    for (var i = 0, at = 0; i < sizes.length && at < digits.length; at += sizes[i++]) out.push(digits.slice(at, at + sizes[i]))
    return out.join(' ')
  }

  /** Per field: the value from what was typed, how it is shown, and whether it is complete and right. */
  var RULES = {
    number: {
      parse: function (raw) {
        var d = digitsOf(raw).slice(0, 19)
        scheme = schemeOf(d)
        return d
      },
      show: groups,
      valid: function (d) {
        return d.length >= 13 && d.length <= 19 && (scheme !== 'amex' || d.length === 15) && luhn(d)
      },
    },
    expirationDate: {
      parse: function (raw) {
        var parts = raw.split('/')
        var d = parts.length === 2 && digitsOf(parts[0]).length === 1 ? '0' + digitsOf(raw) : digitsOf(raw)
        if (/^[2-9]/.test(d)) d = '0' + d
        d = d.slice(0, 4)
        return d.length > 2 ? d.slice(0, 2) + '/' + d.slice(2) : d
      },
      show: function (v) {
        return v
      },
      valid: function (v) {
        var m = /^(0[1-9]|1[0-2])\/(\d\d)$/.exec(v)
        if (!m) return false
        var now = new Date()
        // Good through the last day of its month.
        return (2000 + Number(m[2])) * 12 + Number(m[1]) - 1 >= now.getFullYear() * 12 + now.getMonth()
      },
    },
    securityCode: {
      parse: function (raw) {
        return digitsOf(raw).slice(0, 4)
      },
      show: function (v) {
        return v
      },
      valid: function (v) {
        return scheme === 'amex' ? v.length === 4 : scheme === null ? /^\d{3,4}$/.test(v) : v.length === 3
      },
    },
    // As the API takes them: 16-19 digits, and a PIN of 1-64 characters, not all blank.
    giftCardNumber: {
      parse: function (raw) {
        return digitsOf(raw).slice(0, 19)
      },
      show: groups,
      valid: function (d) {
        return d.length >= 16 && d.length <= 19
      },
    },
    giftCardPin: {
      parse: function (raw) {
        return raw.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 64)
      },
      show: function (v) {
        return v
      },
      valid: function (v) {
        return /\S/.test(v)
      },
    },
  }
  var rule = RULES[field]

  input.setAttribute('aria-label', label)
  input.setAttribute('autocomplete', setup.autocomplete)
  input.setAttribute('inputmode', setup.inputMode || 'numeric')
  input.setAttribute('placeholder', setup.placeholder)
  input.maxLength = setup.maxLength
  input.name = setup.autocomplete === 'off' ? field : setup.autocomplete
  input.disabled = false

  var style = {}
  try {
    style = JSON.parse(params.get('style') || '{}') || {}
  } catch (e) {
    style = {}
  }
  var applied = []
  var kebab = function (p) {
    return p.replace(/[A-Z]/g, function (c) {
      return '-' + c.toLowerCase()
    })
  }
  var focused = false
  var restyle = function () {
    var invalid = value !== '' && !rule.valid(value) && !focused
    input.setAttribute('aria-invalid', invalid ? 'true' : 'false')
    applied.forEach(function (p) {
      input.style.removeProperty(p)
    })
    applied = []
    ;['base', focused ? 'focus' : null, invalid ? 'invalid' : null].forEach(function (state) {
      var s = state && style[state]
      if (!s || typeof s !== 'object') return
      // The page cleaned these; a property that is not CSS is ignored by the browser anyway.
      Object.keys(s).forEach(function (p) {
        if (typeof s[p] !== 'string' || /url\s*\(|\\/i.test(s[p])) return
        input.style.setProperty(kebab(p), s[p])
        applied.push(kebab(p))
      })
    })
  }

  var toPage = function (message) {
    message.orkaSecureFields = mountId
    message.field = name
    window.parent.postMessage(message, parentOrigin)
  }
  /** The other fields of this mount: frames of the same page, on this origin (the target origin sees to it). */
  var toSiblings = function (message) {
    message.orkaSecureFields = mountId
    message.field = name
    for (var i = 0; i < window.parent.frames.length; i++) {
      var w = window.parent.frames[i]
      if (w !== window) w.postMessage(message, location.origin)
    }
  }

  var report = function () {
    var change = { type: 'change', empty: value === '', valid: rule.valid(value) }
    if (field === 'number') change.scheme = scheme
    toPage(change)
    restyle()
  }

  var onInput = function () {
    var raw = input.value
    var caretDigits = digitsOf(raw.slice(0, input.selectionStart === null ? raw.length : input.selectionStart)).length
    value = rule.parse(raw)
    var shown = rule.show(value)
    if (shown !== raw) {
      input.value = shown
      // The caret stays after the same digit it followed.
      var at = 0
      for (var seen = 0; at < shown.length && seen < caretDigits; at++) if (/\d/.test(shown[at])) seen++
      input.setSelectionRange(at, at)
    }
    if (field === 'number') toSiblings({ type: 'scheme', scheme: scheme })
    report()
  }
  input.addEventListener('input', onInput)
  input.addEventListener('focus', function () {
    focused = true
    restyle()
    toPage({ type: 'focus' })
  })
  input.addEventListener('blur', function () {
    focused = false
    restyle()
    toPage({ type: 'blur' })
  })
  // Enter in a field is the page's business (its form), which cannot see this document's keys.
  input.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') e.preventDefault()
  })

  /** A value as this field would send it now: none when it is empty, else whether it is right. */
  var current = function () {
    return { value: value, valid: rule.valid(value) }
  }

  /**
   * What the fields of the mount send, from their values as they are now: the card unless the
   * shopper left it empty for gift cards, each gift card the shopper began (with its amount), or
   * the names of the fields at fault.
   */
  var compose = function (got, names, amounts) {
    var at = function (n) {
      return got[n] || { value: '', valid: false }
    }
    var invalid = []
    var check = function (n) {
      if (!at(n).valid) invalid.push(n)
    }
    var giftCards = []
    for (var i = 0; names.indexOf('giftCards.' + i + '.number') >= 0 || names.indexOf('giftCards.' + i + '.pin') >= 0; i++) {
      var number = at('giftCards.' + i + '.number').value
      var pin = at('giftCards.' + i + '.pin').value
      if (number === '' && pin === '') continue
      var amount = amounts[i]
      check('giftCards.' + i + '.number')
      check('giftCards.' + i + '.pin')
      if (typeof amount !== 'number' || amount % 1 !== 0 || amount < 1) invalid.push('giftCards.' + i + '.amount')
      giftCards.push({ number: number, pin: pin, amount: amount })
    }
    var card = ['number', 'expirationDate', 'securityCode'].some(function (n) {
      return names.indexOf(n) >= 0
    })
      ? ['number', 'expirationDate', 'securityCode']
      : []
    var cardLeftOut = card.every(function (n) {
      return at(n).value === ''
    })
    if (giftCards.length === 0 || !cardLeftOut) card.forEach(check)
    else card = []
    // Nothing begun at all: the first gift card is what is missing.
    if (card.length === 0 && giftCards.length === 0) invalid.push('giftCards.0.number', 'giftCards.0.pin')
    if (invalid.length > 0) return { invalid: invalid }
    var body = {}
    if (card.length > 0)
      body.payment_method = {
        method: 'card',
        number: at('number').value,
        expiration_date: at('expirationDate').value,
        security_code: at('securityCode').value,
      }
    if (giftCards.length > 0) body.gift_cards = giftCards
    return {
      body: body,
      // What the session shows of them, and no more.
      shown: {
        card:
          card.length > 0
            ? { scheme: schemeOf(at('number').value), label: at('number').value.slice(-4), bin: at('number').value.slice(0, 6) }
            : null,
        giftCards: giftCards.map(function (g) {
          return { last4: g.number.slice(-4), amount: g.amount }
        }),
      },
    }
  }

  var describe = function (n) {
    var g = GIFT_CARD_NAME.exec(n) || /^giftCards\.(\d)\.(amount)$/.exec(n)
    if (!g) return SETUP[n].label.toLowerCase()
    return 'gift card ' + (g[1] === '0' ? '' : Number(g[1]) + 1 + ' ') + (g[2] === 'pin' ? 'PIN' : g[2])
  }

  /** The lead field's submit: gathers the other values of the mount from their frames, then sends them. */
  var collecting = {} // requestId -> the values answered so far, and what to do with them
  var submit = function (requestId, names, amounts) {
    var answer = function (result) {
      result.type = 'submitted'
      result.requestId = requestId
      toPage(result)
    }
    var refuse = function (code, message, extra) {
      var error = { code: code, message: message }
      if (extra) for (var k in extra) error[k] = extra[k]
      answer({ error: error })
    }
    var others = names.filter(function (n) {
      return n !== name
    })
    var timer = setTimeout(function () {
      delete collecting[requestId]
      refuse('fields_unavailable', 'A card field did not answer')
    }, COLLECT_TIMEOUT_MS)
    var done = function (got) {
      clearTimeout(timer)
      delete collecting[requestId]
      got[name] = current()
      var sent = compose(got, names, amounts)
      if (sent.invalid)
        refuse('invalid_fields', 'Check the card details: ' + sent.invalid.map(describe).join(', '), { fields: sent.invalid })
      else send(sent, answer, refuse)
    }
    collecting[requestId] = { expected: others, got: {}, then: done }
    if (others.length === 0) done({})
    else toSiblings({ type: 'collect', requestId: requestId })
  }
  var send = function (sent, answer, refuse) {
    var controller = new AbortController()
    var timer = setTimeout(function () {
      controller.abort()
    }, REQUEST_TIMEOUT_MS)
    fetch(location.origin + '/checkout/sessions/' + encodeURIComponent(session) + '/fields', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sent.body),
      credentials: 'omit',
      cache: 'no-store',
      signal: controller.signal,
    })
      .then(function (res) {
        if (res.status === 204) return answer(sent.shown)
        return res.json().then(
          function (body) {
            // Orka's details name a field and a rule, never a value (a gift card's rule: its place, the amount).
            var details = Array.isArray(body.details)
              ? body.details.map(function (d) {
                  return { pointer: String(d.pointer), type: String(d.type), message: String(d.message) }
                })
              : []
            refuse(String(body.code || 'request_failed'), String(body.message || 'Orka answered ' + res.status), { details: details })
          },
          function () {
            refuse('request_failed', 'Orka answered ' + res.status)
          },
        )
      })
      .catch(function () {
        refuse(controller.signal.aborted ? 'timeout' : 'network_error', 'Could not reach Orka')
      })
      .then(function () {
        clearTimeout(timer)
      })
  }

  /** The names the page may say its mount has: the card's fields and up to ten gift cards'. */
  var MOUNT_NAME = /^(number|expirationDate|securityCode|giftCards\.\d\.(number|pin))$/
  var submitted = function (data) {
    var names = data.names
    if (typeof data.requestId !== 'string' || !Array.isArray(names) || names.indexOf(name) < 0) return
    for (var i = 0; i < names.length; i++) if (typeof names[i] !== 'string' || !MOUNT_NAME.test(names[i])) return
    submit(data.requestId, names, Array.isArray(data.amounts) ? data.amounts : [])
  }

  window.addEventListener('message', function (event) {
    var data = event.data
    if (!data || typeof data !== 'object' || data.orkaSecureFields !== mountId) return
    if (event.source === window.parent && event.origin === parentOrigin) {
      // The page may ask for focus, and the lead field for a submit: nothing else.
      if (data.type === 'focus') input.focus()
      else if (data.type === 'submit' && session) submitted(data)
      return
    }
    // Another field of this mount: same origin, a frame of the same page.
    if (event.origin !== location.origin || !event.source || event.source.parent !== window.parent) return
    if (data.type === 'scheme' && data.field === 'number' && (field === 'expirationDate' || field === 'securityCode')) {
      scheme = typeof data.scheme === 'string' ? data.scheme : null
      if (value !== '') report()
    } else if (data.type === 'collect' && !session) {
      var now = current()
      event.source.postMessage(
        { orkaSecureFields: mountId, field: name, type: 'value', requestId: data.requestId, value: now.value, valid: now.valid },
        location.origin,
      )
    } else if (data.type === 'value' && session && collecting[data.requestId]) {
      var c = collecting[data.requestId]
      if (c.expected.indexOf(data.field) < 0) return
      c.got[data.field] = { value: String(data.value), valid: data.valid === true }
      if (
        c.expected.every(function (n) {
          return c.got[n]
        })
      )
        c.then(c.got)
    }
  })

  restyle()
  toPage({ type: 'ready' })
})()
