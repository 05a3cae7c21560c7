/*!
 * One Orka Secure Fields input, inside an iframe on Orka's origin. It tells the page that framed
 * it only whether it is empty and valid (and the number's scheme); the values go to the other
 * fields of the same mount (same origin only) and, on submit, from the number field to Orka.
 */
;(function () {
  'use strict'

  var params = new URLSearchParams(location.hash.slice(1))
  var field = params.get('field')
  var mountId = params.get('mount')
  var parentOrigin = params.get('origin')
  var session = params.get('session')
  var input = document.getElementById('field')
  var SETUP = {
    number: { label: 'Card number', autocomplete: 'cc-number', placeholder: '1234 1234 1234 1234', maxLength: 23 },
    expirationDate: { label: 'Expiry date, month and year', autocomplete: 'cc-exp', placeholder: 'MM/YY', maxLength: 5 },
    securityCode: { label: 'Security code', autocomplete: 'cc-csc', placeholder: 'CVC', maxLength: 4 },
  }
  // Framed by a page (frame-ancestors limits which), for one mount: anything else stays inert.
  if (!SETUP[field] || !mountId || !parentOrigin || window.parent === window) return
  var setup = SETUP[field]
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
    var sizes = scheme === 'amex' ? [4, 6, 5] : scheme === 'diners-club' && digits.length === 14 ? [4, 6, 4] : [4, 4, 4, 4, 3]
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
  }
  var rule = RULES[field]

  input.setAttribute('aria-label', setup.label)
  input.setAttribute('autocomplete', setup.autocomplete)
  input.setAttribute('inputmode', 'numeric')
  input.setAttribute('placeholder', setup.placeholder)
  input.maxLength = setup.maxLength
  input.name = setup.autocomplete
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
    message.field = field
    window.parent.postMessage(message, parentOrigin)
  }
  /** The other fields of this mount: frames of the same page, on this origin (the target origin sees to it). */
  var toSiblings = function (message) {
    message.orkaSecureFields = mountId
    message.field = field
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

  /** The number field's submit: gathers the other two values from their frames, then sends the card. */
  var collecting = {} // requestId -> the values answered so far, and what to do with them
  var submit = function (requestId) {
    var answer = function (result) {
      result.type = 'submitted'
      result.requestId = requestId
      toPage(result)
    }
    var refuse = function (code, message) {
      answer({ error: { code: code, message: message } })
    }
    var timer = setTimeout(function () {
      delete collecting[requestId]
      refuse('fields_unavailable', 'A card field did not answer')
    }, COLLECT_TIMEOUT_MS)
    collecting[requestId] = {
      got: {},
      then: function (got) {
        clearTimeout(timer)
        delete collecting[requestId]
        got.number = { valid: rule.valid(value) }
        var invalid = ['number', 'expirationDate', 'securityCode'].filter(function (f) {
          return !got[f].valid
        })
        if (invalid.length > 0)
          answer({
            error: {
              code: 'invalid_fields',
              message:
                'Check the card details: ' +
                invalid
                  .map(function (f) {
                    return SETUP[f].label.toLowerCase()
                  })
                  .join(', '),
              fields: invalid,
            },
          })
        else send(got, answer, refuse)
      },
    }
    toSiblings({ type: 'collect', requestId: requestId })
  }
  var send = function (got, answer, refuse) {
    var controller = new AbortController()
    var timer = setTimeout(function () {
      controller.abort()
    }, REQUEST_TIMEOUT_MS)
    var card = { scheme: scheme, label: value.slice(-4), bin: value.slice(0, 6) }
    fetch(location.origin + '/checkout/sessions/' + encodeURIComponent(session) + '/fields', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        payment_method: { method: 'card', number: value, expiration_date: got.expirationDate.value, security_code: got.securityCode.value },
      }),
      credentials: 'omit',
      cache: 'no-store',
      signal: controller.signal,
    })
      .then(function (res) {
        if (res.status === 204) return answer({ card: card })
        return res.json().then(
          function (body) {
            refuse(String(body.code || 'request_failed'), String(body.message || 'Orka answered ' + res.status))
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

  window.addEventListener('message', function (event) {
    var data = event.data
    if (!data || typeof data !== 'object' || data.orkaSecureFields !== mountId) return
    if (event.source === window.parent && event.origin === parentOrigin) {
      // The page may ask for focus, and the number field for a submit: nothing else.
      if (data.type === 'focus') input.focus()
      else if (data.type === 'submit' && field === 'number' && session && typeof data.requestId === 'string') submit(data.requestId)
      return
    }
    // Another field of this mount: same origin, a frame of the same page.
    if (event.origin !== location.origin || !event.source || event.source.parent !== window.parent) return
    if (data.type === 'scheme' && field !== 'number') {
      scheme = typeof data.scheme === 'string' ? data.scheme : null
      if (value !== '') report()
    } else if (data.type === 'collect' && field !== 'number' && data.field === 'number') {
      event.source.postMessage(
        { orkaSecureFields: mountId, field: field, type: 'value', requestId: data.requestId, value: value, valid: rule.valid(value) },
        location.origin,
      )
    } else if (data.type === 'value' && field === 'number' && collecting[data.requestId] && SETUP[data.field]) {
      var c = collecting[data.requestId]
      c.got[data.field] = { value: String(data.value), valid: data.valid === true }
      if (c.got.expirationDate && c.got.securityCode) c.then(c.got)
    }
  })

  restyle()
  toPage({ type: 'ready' })
})()
