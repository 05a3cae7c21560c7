/* The demo merchant page: mounts Secure Fields, and pays with the embed token its server made. */
;(function () {
  'use strict'
  var main = document.getElementById('checkout')
  var checkout = main.dataset
  var form = document.getElementById('pay-form')
  var button = document.getElementById('pay')
  var status = document.getElementById('status')
  var say = function (text, outcome) {
    status.textContent = text
    status.dataset.outcome = outcome || ''
  }

  var fields = OrkaSecureFields.mount({
    orka: location.origin,
    sessionId: checkout.sessionId,
    fields: { number: '#card-number', expirationDate: '#card-expiry', securityCode: '#card-cvv' },
    style: { base: { fontSize: '16px', color: '#1f2433' }, invalid: { color: '#c00' } },
  })
  fields.on('ready', function () {
    button.disabled = false
  })
  fields.on('error', function (e) {
    say(e.message, 'error')
  })
  ;['card-number', 'card-expiry', 'card-cvv'].forEach(function (id, i) {
    document.getElementById(id + '-label').addEventListener('click', function () {
      fields.focus(['number', 'expirationDate', 'securityCode'][i])
    })
  })

  form.addEventListener('submit', function (event) {
    event.preventDefault()
    button.disabled = true
    say('Paying…')
    fields
      .submit()
      .then(function () {
        return fetch('/transactions', {
          method: 'POST',
          headers: { authorization: 'Bearer ' + checkout.token, 'content-type': 'application/json' },
          body: JSON.stringify({
            amount: Number(checkout.amount),
            currency: checkout.currency,
            payment_method: { method: 'checkout-session', id: checkout.sessionId },
          }),
        })
      })
      .then(function (res) {
        return res.json().then(function (body) {
          if (res.ok) say(body.status, body.status)
          else say(body.code + ': ' + body.message, 'error')
          // A session pays once: a new checkout is a reload.
          if (!res.ok) button.disabled = false
        })
      })
      .catch(function (e) {
        say(e && e.message ? e.message : 'Something went wrong', 'error')
        button.disabled = false
      })
  })
})()
