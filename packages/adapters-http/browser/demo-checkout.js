/* The demo merchant page: mounts Secure Fields, and pays with the embed token its server made. */
;(function () {
  'use strict'
  var main = document.getElementById('checkout')
  var checkout = main.dataset
  var form = document.getElementById('pay-form')
  var button = document.getElementById('pay')
  var addGiftCard = document.getElementById('add-gift-card')
  var status = document.getElementById('status')
  var redemptions = document.getElementById('redemptions')
  var slots = Array.prototype.slice.call(document.querySelectorAll('.gift-card'))
  var say = function (text, outcome) {
    status.textContent = text
    status.dataset.outcome = outcome || ''
  }
  var money = function (minor) {
    return (minor / 100).toFixed(2) + ' ' + checkout.currency
  }
  /** What the shopper typed as an amount ("5", "5.00"), in minor units; null when it is not one. */
  var minor = function (text) {
    var m = /^\s*(\d{1,6})(?:[.,](\d{1,2}))?\s*$/.exec(text)
    return m ? Number(m[1]) * 100 + Number(((m[2] || '') + '00').slice(0, 2)) : null
  }

  var fields = OrkaSecureFields.mount({
    orka: location.origin,
    sessionId: checkout.sessionId,
    fields: {
      number: '#card-number',
      expirationDate: '#card-expiry',
      securityCode: '#card-cvv',
      giftCards: slots.map(function (slot) {
        return { number: '#' + slot.id + '-number', pin: '#' + slot.id + '-pin' }
      }),
    },
    style: { base: { fontSize: '16px', color: '#1f2433' }, invalid: { color: '#c00' } },
  })
  fields.on('ready', function () {
    button.disabled = false
  })
  fields.on('error', function (e) {
    say(e.message, 'error')
  })
  // A page's own labels focus the fields, which live in other documents.
  var labelled = { 'card-number': 'number', 'card-expiry': 'expirationDate', 'card-cvv': 'securityCode' }
  slots.forEach(function (slot, i) {
    labelled[slot.id + '-number'] = 'giftCards.' + i + '.number'
    labelled[slot.id + '-pin'] = 'giftCards.' + i + '.pin'
  })
  Object.keys(labelled).forEach(function (id) {
    document.getElementById(id + '-label').addEventListener('click', function () {
      fields.focus(labelled[id])
    })
  })

  addGiftCard.addEventListener('click', function () {
    var next = slots.filter(function (slot) {
      return slot.hidden
    })
    if (next.length > 0) next[0].hidden = false
    if (next.length <= 1) addGiftCard.hidden = true
  })

  /** The transaction's gift cards, as it shows them: each one's last 4, amount and outcome. */
  var showRedemptions = function (transaction) {
    redemptions.textContent = ''
    ;(transaction.gift_card_redemptions || []).forEach(function (r) {
      var item = document.createElement('li')
      item.dataset.status = r.status
      item.textContent =
        'Gift card ending ' + r.gift_card.last4 + ': ' + money(r.amount) + ', ' + r.status + (r.error_code ? ' (' + r.error_code + ')' : '')
      redemptions.appendChild(item)
    })
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault()
    button.disabled = true
    redemptions.textContent = ''
    say('Paying…')
    var amounts = slots.map(function (slot) {
      return slot.hidden ? null : minor(document.getElementById(slot.id + '-amount').value)
    })
    fields
      .submit({ giftCardAmounts: amounts })
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
          if (res.ok) {
            say(body.status, body.status)
            showRedemptions(body)
          } else say(body.code + ': ' + (body.details && body.details[0] ? body.details[0].message : body.message), 'error')
          // A session pays once: a new checkout is a reload.
          if (!res.ok) button.disabled = false
        })
      })
      .catch(function (e) {
        var why = e && e.details && e.details[0] ? e.details[0].message : e && e.message ? e.message : 'Something went wrong'
        say(why, 'error')
        button.disabled = false
      })
  })
})()
