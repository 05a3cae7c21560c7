import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Filter } from 'mongodb'
import { Seek, TransactionFilter, TransactionRecord, TransactionStore, Unavailable } from '@orka/domain'
import { BoundedCollection, storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey, keysetRead, storageCalls, StorageCalls, UndecodableDocument } from './mongo-support'
import { TransactionVersionDocument, toTransactionVersionDocument } from './transaction-version.document'

/** The document's filter for a list filter: every given field must hold. */
const filterOf = (merchantAccountId: string, f: TransactionFilter): Filter<TransactionVersionDocument> => {
  const range = (gte: number | undefined, lte: number | undefined) => ({
    ...(gte === undefined ? {} : { $gte: gte }),
    ...(lte === undefined ? {} : { $lte: lte }),
  })
  const ms = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso))
  return {
    merchant_account_id: merchantAccountId,
    superseded: false,
    ...(f.status === undefined ? {} : { status: { $in: [...f.status] } }),
    ...(f.buyer_id === undefined ? {} : { buyer_id: f.buyer_id }),
    ...(f.buyer_external_identifier === undefined ? {} : { buyer_external_identifier: f.buyer_external_identifier }),
    ...(f.external_identifier === undefined ? {} : { external_identifier: f.external_identifier }),
    ...(f.checkout_session_id === undefined ? {} : { checkout_session_id: f.checkout_session_id }),
    ...(f.currency === undefined ? {} : { currency: f.currency }),
    ...(f.created_at_gte === undefined && f.created_at_lte === undefined
      ? {}
      : { created_at_ms: range(ms(f.created_at_gte), ms(f.created_at_lte)) }),
    ...(f.amount_gte === undefined && f.amount_lte === undefined ? {} : { amount: range(f.amount_gte, f.amount_lte) }),
  }
}

/** One document per version, `_id` (transaction, version): the unique `_id` makes each version one insert's, across every process. */
export class MongoTransactionStore implements TransactionStore {
  readonly #col: StoredCollection<TransactionVersionDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.transactionVersions)
  }

  /**
   * Inserts the version; a duplicate `_id` means another writer has it. (The flows write the
   * version after one they read, of the account they read it in: that is not checked again.)
   * The versions before are then marked superseded, so that lists read newest versions only.
   * The mark is an optimisation: until it lands a list may see two versions of one
   * transaction, and keeps the newer (`newestOnly`).
   */
  put(record: TransactionRecord): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(async (signal) => {
      const col = this.#col.within(signal)
      try {
        await col.insertOne(toTransactionVersionDocument(record))
      } catch (e) {
        if (isDuplicateKey(e)) return false
        throw e
      }
      if (record.version > 0)
        await col.updateMany(
          { transaction_id: record.id, version: { $lt: record.version }, superseded: false },
          { $set: { superseded: true } },
        )
      return true
    })
  }

  find(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<TransactionRecord>> {
    return this.#calls.attempt(async (signal) =>
      O.fromNullable((await this.#newest(this.#col.within(signal), merchantAccountId, id)) ?? undefined),
    )
  }

  async #newest(
    col: BoundedCollection<TransactionVersionDocument>,
    merchantAccountId: string,
    id: string,
  ): Promise<TransactionRecord | null> {
    const [doc] = await col.find({ transaction_id: id, merchant_account_id: merchantAccountId }).sort({ version: -1 }).limit(1).toArray()
    return doc === undefined ? null : recordOf(doc)
  }

  history(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, readonly TransactionRecord[]> {
    return this.#calls.attempt(async (signal) =>
      (
        await this.#col.within(signal).find({ transaction_id: id, merchant_account_id: merchantAccountId }).sort({ version: 1 }).toArray()
      ).map(recordOf),
    )
  }

  list(merchantAccountId: string, filter: TransactionFilter, seek: Seek): TE.TaskEither<Unavailable, readonly TransactionRecord[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const { filter: key, sort } = keysetRead('created_at', 'descending', seek, 'transaction_id')
      const docs = await this.#col
        .within(signal)
        .find({ ...filterOf(merchantAccountId, filter), ...key })
        .sort(sort)
        .limit(seek.limit * 2 + 2)
        .toArray()
      return newestOnly(docs.map(recordOf)).slice(0, seek.limit)
    })
  }

  findByRefund(merchantAccountId: string, refundId: string): TE.TaskEither<Unavailable, O.Option<TransactionRecord>> {
    return this.#calls.attempt(async (signal) => {
      const col = this.#col.within(signal)
      const holder = await col.findOne(
        { merchant_account_id: merchantAccountId, refund_ids: refundId },
        { projection: { transaction_id: 1 } },
      )
      return O.fromNullable(
        holder === null ? undefined : ((await this.#newest(col, merchantAccountId, holder.transaction_id)) ?? undefined),
      )
    })
  }

  stale(before: Date, limit: number): TE.TaskEither<Unavailable, readonly TransactionRecord[]> {
    return this.#calls.attempt(async (signal) => {
      if (limit < 1) return []
      const col = this.#col.within(signal)
      const candidates = await col
        .find({ superseded: false, pending: true, updated_at_ms: { $lt: before.getTime() } })
        .sort({ updated_at_ms: 1 })
        .limit(limit)
        .toArray()
      const out: TransactionRecord[] = []
      // A version not yet marked superseded may have a newer one: only a pending newest version is stale.
      for (const c of candidates) {
        const newest = await this.#newest(col, c.merchant_account_id, c.transaction_id)
        if (newest?.pending === true && newest.version === c.version) out.push(newest)
      }
      return out
    })
  }
}

const recordOf = (d: TransactionVersionDocument): TransactionRecord => {
  const decoded = E.flatMap((u: unknown) => TransactionRecord.decode(u))(E.tryCatch((): unknown => JSON.parse(d.record), E.toError))
  if (E.isLeft(decoded)) throw new UndecodableDocument(COLLECTIONS.transactionVersions, d._id, ['record'])
  return decoded.right
}

/** A list's records with only the newest version of each transaction (they sort next to each other). */
const newestOnly = (rs: readonly TransactionRecord[]): TransactionRecord[] => {
  const best = new Map<string, TransactionRecord>()
  for (const r of rs) if ((best.get(r.id)?.version ?? -1) < r.version) best.set(r.id, r)
  return rs.filter((r) => best.get(r.id) === r)
}
