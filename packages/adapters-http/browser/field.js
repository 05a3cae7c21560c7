/*!
 * One Orka Secure Fields input, inside an iframe on Orka's origin. It tells the page that framed
 * it only whether it is empty and valid (and the number's scheme); the values go to the other
 * fields of the same mount (same origin only) and, on submit, from the lead field (the one given
 * the session, lead.js) to Orka. Its card rules are card-rules.js.
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
  var cardRules = window.OrkaCardRules

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
        scheme = cardRules.schemeOf(d)
        return d
      },
      show: groups,
      valid: cardRules.numberValid,
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
        return cardRules.expiryValid(v, new Date())
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

  // Only the field given the session gathers the others and sends them.
  var lead = session
    ? window.OrkaLead({
        name: name,
        session: session,
        current: current,
        labelOf: function (n) {
          return SETUP[n].label
        },
        toPage: toPage,
        toSiblings: toSiblings,
      })
    : null

  window.addEventListener('message', function (event) {
    var data = event.data
    if (!data || typeof data !== 'object' || data.orkaSecureFields !== mountId) return
    if (event.source === window.parent && event.origin === parentOrigin) {
      // The page may ask for focus, and the lead field for a submit: nothing else.
      if (data.type === 'focus') input.focus()
      else if (data.type === 'submit' && lead) lead.submitted(data)
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
    } else if (data.type === 'value' && lead) lead.answered(data)
  })

  restyle()
  toPage({ type: 'ready' })
})()
