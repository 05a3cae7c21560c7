import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Debit, GiftCardLedger, LedgerEntry, Movement, Unavailable } from '@orka/domain'
import { atomically } from './memory-support'

/** Each card's chain of entries; every movement is one synchronous step (`atomically`), so none races another. */
export class MemoryGiftCardLedger implements GiftCardLedger {
  private readonly chains = new Map<string, LedgerEntry[]>()

  balance(card: string, opening: number): TE.TaskEither<Unavailable, number> {
    return atomically(() => E.right(this.chains.get(card)?.at(-1)?.balance ?? opening))
  }

  debit(m: Movement): TE.TaskEither<Unavailable, Debit> {
    return atomically((): E.Either<Unavailable, Debit> => {
      const earlier = this.applied(m)
      if (earlier !== undefined) return E.right({ _tag: 'Debited', entry: earlier })
      const balance = this.chains.get(m.card)?.at(-1)?.balance ?? m.opening
      return E.right(balance < m.amount ? { _tag: 'Insufficient', balance } : { _tag: 'Debited', entry: this.append(m, -m.amount) })
    })
  }

  credit(m: Movement): TE.TaskEither<Unavailable, LedgerEntry> {
    return atomically(() => E.right(this.applied(m) ?? this.append(m, m.amount)))
  }

  entries(card: string): TE.TaskEither<Unavailable, readonly LedgerEntry[]> {
    return atomically(() => E.right([...(this.chains.get(card) ?? [])]))
  }

  private applied(m: Movement): LedgerEntry | undefined {
    return this.chains.get(m.card)?.find((e) => e.reference === m.reference)
  }

  private append(m: Movement, amount: number): LedgerEntry {
    const chain = this.chains.get(m.card) ?? []
    const last = chain.at(-1)
    const entry = Object.freeze({
      card: m.card,
      seq: (last?.seq ?? 0) + 1,
      reference: m.reference,
      amount,
      balance: (last?.balance ?? m.opening) + amount,
    })
    chain.push(entry)
    this.chains.set(m.card, chain)
    return entry
  }
}
