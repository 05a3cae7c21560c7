import { expect } from 'chai'
import { Debit, GiftCardLedger, LedgerEntry } from '../gift-cards/gift-card-ledger.ports'
import { Harness, right, teardownHarness } from './harness'

const CARD = 'card-fingerprint-a'
const OTHER = 'card-fingerprint-b'
const OPENING = 10_000

/** What the ledger must always show: entries numbered from 1 without a gap, each applied on the one before, never negative. */
export const expectConsistent = (entries: readonly LedgerEntry[], opening: number, balance: number): void => {
  let expected = opening
  entries.forEach((e, i) => {
    expect(e.seq, 'entries numbered from 1, no gap').to.equal(i + 1)
    expected += e.amount
    expect(e.balance, `balance after entry ${e.seq}`).to.equal(expected)
    expect(e.balance).to.be.at.least(0)
  })
  expect(balance, 'the balance is the opening plus every movement').to.equal(expected)
  expect(new Set(entries.map((e) => e.reference)).size, 'each reference applied once').to.equal(entries.length)
}

const debited = (d: Debit): LedgerEntry => (d._tag === 'Debited' ? d.entry : expect.fail(`expected Debited, got ${JSON.stringify(d)}`))

export const giftCardLedgerContract = (name: string, setup: () => Promise<Harness<GiftCardLedger>>) =>
  describe(`GiftCardLedger: ${name}`, () => {
    let h: Harness<GiftCardLedger>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    const debit = (amount: number, reference: string, card = CARD, opening = OPENING) =>
      right(h.port.debit({ card, opening, amount, reference }))
    const credit = (amount: number, reference: string, card = CARD, opening = OPENING) =>
      right(h.port.credit({ card, opening, amount, reference }))
    const balance = (card = CARD, opening = OPENING) => right(h.port.balance(card, opening))
    const entries = (card = CARD) => right(h.port.entries(card))

    it('reads a card it has never moved at its opening balance, with no entry', async () => {
      expect([await balance(), await entries()]).to.deep.equal([OPENING, []])
    })

    it('debits within the balance, numbering the entry and keeping the balance after it', async () => {
      expect(await debit(2500, 'r1')).to.deep.equal({
        _tag: 'Debited',
        entry: { card: CARD, seq: 1, reference: 'r1', amount: -2500, balance: 7500 },
      })
      expect(await debit(7500, 'r2')).to.deep.equal({
        _tag: 'Debited',
        entry: { card: CARD, seq: 2, reference: 'r2', amount: -7500, balance: 0 },
      })
      expect(await balance()).to.equal(0)
      expectConsistent(await entries(), OPENING, 0)
    })

    it('refuses a debit the balance does not cover, and changes nothing', async () => {
      await debit(9000, 'r1')
      expect(await debit(1001, 'r2')).to.deep.equal({ _tag: 'Insufficient', balance: 1000 })
      expect(await debit(20_000, 'r3', OTHER)).to.deep.equal({ _tag: 'Insufficient', balance: OPENING })
      expect([await balance(), (await entries()).length, await entries(OTHER)]).to.deep.equal([1000, 1, []])
      // The refused reference was not spent: it may debit once the balance covers it.
      await credit(1, 'c1')
      expect(debited(await debit(1001, 'r2')).balance).to.equal(0)
    })

    it('applies a reference once: asked again, it answers the first entry, whatever the balance or amount now', async () => {
      const first = await debit(4000, 'r1')
      await debit(6000, 'r2')
      expect(await debit(4000, 'r1')).to.deep.equal(first)
      expect(await debit(1, 'r1')).to.deep.equal(first)
      const back = await credit(4000, 'c1')
      expect(await credit(4000, 'c1')).to.deep.equal(back)
      expect(await balance()).to.equal(4000)
      expectConsistent(await entries(), OPENING, 4000)
    })

    it('marks a reference with a credit of 0: after a debit it answers the debit, before one it is what that debit answers', async () => {
      const first = debited(await debit(4000, 'r1'))
      expect(await credit(0, 'r1')).to.deep.equal(first)
      const mark = await credit(0, 'r2')
      expect(mark).to.deep.equal({ card: CARD, seq: 2, reference: 'r2', amount: 0, balance: OPENING - 4000 })
      expect(await debit(1000, 'r2')).to.deep.equal({ _tag: 'Debited', entry: mark })
      expect(await balance()).to.equal(OPENING - 4000)
    })

    it('credits on top of the latest entry, beyond the opening balance too', async () => {
      await debit(100, 'r1')
      expect(await credit(100, 'c1')).to.deep.equal({ card: CARD, seq: 2, reference: 'c1', amount: 100, balance: OPENING })
      expect(await credit(50, 'c2')).to.deep.equal({ card: CARD, seq: 3, reference: 'c2', amount: 50, balance: OPENING + 50 })
      expectConsistent(await entries(), OPENING, OPENING + 50)
    })

    it('keeps each card apart, and its opening only until its first entry', async () => {
      await debit(100, 'r1', CARD, 500)
      await debit(100, 'r1', OTHER, 300)
      expect([await balance(CARD, 500), await balance(OTHER, 300)]).to.deep.equal([400, 200])
      // A later call naming another opening changes nothing: the card's chain is its balance.
      expect(await balance(CARD, 9999)).to.equal(400)
      expect(debited(await debit(400, 'r2', CARD, 9999)).balance).to.equal(0)
    })

    it('lets 64 racing debits take exactly what the balance covers, no more', async () => {
      const outcomes = await Promise.all(Array.from({ length: 64 }, (_, i) => debit(300, `race-${i}`)))
      const taken = outcomes.filter((o) => o._tag === 'Debited').length
      expect(taken).to.equal(Math.floor(OPENING / 300))
      // Each refusal saw a balance that could not cover it.
      const refusedAt = outcomes.flatMap((o) => (o._tag === 'Insufficient' ? [o.balance] : []))
      expect(refusedAt.filter((b) => b >= 300)).to.deep.equal([])
      expect(await balance()).to.equal(OPENING - taken * 300)
      expectConsistent(await entries(), OPENING, OPENING - taken * 300)
    })

    it('applies a reference raced by many callers once', async () => {
      const outcomes = await Promise.all(Array.from({ length: 16 }, () => debit(700, 'same')))
      expect(new Set(outcomes.map((o) => JSON.stringify(o))).size).to.equal(1)
      expect((await entries()).length).to.equal(1)
      expect(await balance()).to.equal(OPENING - 700)
    })

    it('stays consistent under racing debits and credits', async () => {
      const moves = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? credit(250, `c-${i}`) : debit(900, `d-${i}`)))
      await Promise.all(moves)
      const all = await entries()
      expectConsistent(all, OPENING, await balance())
      expect(all.filter((e) => e.amount > 0).length).to.equal(14)
    })
  })
