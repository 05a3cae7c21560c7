/*!
 * Orka Secure Fields: the card rules a field checks as the shopper types. They copy the domain's
 * (cardSchemeOf, luhnValid, CardNumber and expiredAt in @orka/domain), so that a field calls valid
 * only what Orka will take; test/browser/card-rules.spec.ts holds the copies to the originals.
 */
;(function (global) {
  'use strict'

  // In the domain's order: the first match wins.
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

  global.OrkaCardRules = Object.freeze({
    schemeOf: schemeOf,
    luhn: luhn,
    /** As the API takes a number (13-19 digits, its check digit right), and an Amex one only at 15 digits. */
    numberValid: function (digits) {
      return digits.length >= 13 && digits.length <= 19 && (schemeOf(digits) !== 'amex' || digits.length === 15) && luhn(digits)
    },
    /** MM/YY, good through the last day of its month; by the shopper's clock, where the domain reads UTC. */
    expiryValid: function (mmYY, now) {
      var m = /^(0[1-9]|1[0-2])\/(\d\d)$/.exec(mmYY)
      if (!m) return false
      return (2000 + Number(m[2])) * 12 + Number(m[1]) - 1 >= now.getFullYear() * 12 + now.getMonth()
    },
  })
})(window)
