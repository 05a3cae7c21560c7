/*!
 * Orka Secure Fields: the lead, the one field of a mount given the session. On the page's submit
 * it gathers the values of the mount's other fields from their frames (same origin only), checks
 * them together and sends them to Orka in one PUT; the page hears only what the session shows.
 */
;(function (global) {
  'use strict'

  var COLLECT_TIMEOUT_MS = 3000
  var REQUEST_TIMEOUT_MS = 20000
  /** The names the page may say its mount has: the card's fields and up to ten gift cards'. */
  var MOUNT_NAME = /^(number|expirationDate|securityCode|giftCards\.\d\.(number|pin))$/

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
            ? {
                scheme: global.OrkaCardRules.schemeOf(at('number').value),
                label: at('number').value.slice(-4),
                bin: at('number').value.slice(0, 6),
              }
            : null,
        giftCards: giftCards.map(function (g) {
          return { last4: g.number.slice(-4), amount: g.amount }
        }),
      },
    }
  }

  /**
   * The lead part of the field `own`: its name, the session, its value as it would send it now, the
   * labels of the card's fields, and its ways to the page and to the other fields.
   */
  var lead = function (own) {
    var name = own.name

    var describe = function (n) {
      var g = /^giftCards\.(\d)\.(number|pin|amount)$/.exec(n)
      if (!g) return own.labelOf(n).toLowerCase()
      return 'gift card ' + (g[1] === '0' ? '' : Number(g[1]) + 1 + ' ') + (g[2] === 'pin' ? 'PIN' : g[2])
    }

    var collecting = {} // requestId -> the values answered so far, and what to do with them
    var submit = function (requestId, names, amounts) {
      var answer = function (result) {
        result.type = 'submitted'
        result.requestId = requestId
        own.toPage(result)
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
        got[name] = own.current()
        var sent = compose(got, names, amounts)
        if (sent.invalid)
          refuse('invalid_fields', 'Check the card details: ' + sent.invalid.map(describe).join(', '), { fields: sent.invalid })
        else send(sent, answer, refuse)
      }
      collecting[requestId] = { expected: others, got: {}, then: done }
      if (others.length === 0) done({})
      else own.toSiblings({ type: 'collect', requestId: requestId })
    }
    var send = function (sent, answer, refuse) {
      var controller = new AbortController()
      var timer = setTimeout(function () {
        controller.abort()
      }, REQUEST_TIMEOUT_MS)
      fetch(location.origin + '/checkout/sessions/' + encodeURIComponent(own.session) + '/fields', {
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

    return {
      /** The page's submit, when it names this field among the mount's. */
      submitted: function (data) {
        var names = data.names
        if (typeof data.requestId !== 'string' || !Array.isArray(names) || names.indexOf(name) < 0) return
        for (var i = 0; i < names.length; i++) if (typeof names[i] !== 'string' || !MOUNT_NAME.test(names[i])) return
        submit(data.requestId, names, Array.isArray(data.amounts) ? data.amounts : [])
      },
      /** Another field's value, for a submit that asked for it. */
      answered: function (data) {
        var c = collecting[data.requestId]
        if (!c || c.expected.indexOf(data.field) < 0) return
        c.got[data.field] = { value: String(data.value), valid: data.valid === true }
        if (
          c.expected.every(function (n) {
            return c.got[n]
          })
        )
          c.then(c.got)
      },
    }
  }

  global.OrkaLead = Object.freeze(lead)
})(window)
