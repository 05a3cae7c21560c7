import { expect } from 'chai'

/**
 * Card numbers for the mock gift card service, which answers by the last four digits (`0002`
 * refused, `0004` empty, most others a balance of 10000 USD): 19 digits, unique per call so that
 * the vault's per-account deduplication never turns a store into a `409`.
 */
export const makeCardNumbers = (prefix: string) => {
  let n = 0
  return (last4: string) => `${prefix}${String(n++).padStart(19 - prefix.length - 4, '0')}${last4}`
}

/** The expiration date the mock gives a card: three years after `now`. */
export const threeYearsAfter = (now: Date): Date => {
  const d = new Date(now)
  d.setUTCFullYear(d.getUTCFullYear() + 3)
  return d
}

/** What `promise` was rejected with; fails the test when it resolves. */
export const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (e) {
    return e
  }
  return expect.fail('expected the call to be rejected')
}
