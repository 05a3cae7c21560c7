import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Filter } from 'mongodb'
import * as t from 'io-ts'
import {
  AuditRecord,
  OutboxEntry,
  Seek,
  StaleFrom,
  TransactionFilter,
  TransactionRecord,
  TransactionStore,
  Unavailable,
  Unfolded,
  VersionKey,
  WrittenWith,
} from '@orka/domain'
import { BoundedCollection, storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { UndecodableDocument } from './document-decoder'
import { isDuplicateKey } from './duplicate-key'
import { keysetRead } from './keyset-read'
import { storageCalls, StorageCalls } from './storage-calls'
import { SupersededMarks } from './superseded-marks'
import { TransactionVersionDocument, toTransactionVersionDocument, versionId } from './transaction-version.document'

/** The document's filter for a list filter: every given field must hold (of any version, marked or not). */
const filterOf = (merchantAccountId: string, f: TransactionFilter): Filter<TransactionVersionDocument> => {
  const range = (gte: number | undefined, lte: number | undefined) => ({
    ...(gte === undefined ? {} : { $gte: gte }),
    ...(lte === undefined ? {} : { $lte: lte }),
  })
  const ms = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso))
  return {
    merchant_account_id: merchantAccountId,
    ...(f.status === undefined ? {} : { status: { $in: [...f.status] } }),
    ...(f.buyer_id === undefined ? {} : { buyer_id: f.buyer_id }),
    ...(f.buyer_external_identifier === undefined ? {} : { buyer_external_identifier: f.buyer_external_identifier }),
    ...(f.external_identifier === undefined ? {} : { external_identifier: f.external_identifier }),
    ...(f.checkout_session_id === undefined ? {} : { checkout_session_id: f.checkout_session_id }),
    ...(f.currency === undefined ? {} : { currency: { $in: [...f.currency] } }),
    ...(f.created_at_gte === undefined && f.created_at_lte === undefined
      ? {}
      : { created_at_ms: range(ms(f.created_at_gte), ms(f.created_at_lte)) }),
    ...(f.amount_gte === undefined && f.amount_lte === undefined ? {} : { amount: range(f.amount_gte, f.amount_lte) }),
    ...(f.gift_card_id === undefined ? {} : { gift_card_ids: f.gift_card_id }),
    // `$ne: true` for false: versions written before the field existed have no redemptions.
    ...(f.has_gift_card_redemptions === undefined ? {} : { has_gift_card_redemptions: f.has_gift_card_redemptions ? true : { $ne: true } }),
  }
}

/**
 * One document per version, `_id` (transaction, version): the unique `_id` makes each version one
 * insert's, across every process. A version is marked `superseded` some time after a later one
 * is written (`SupersededMarks`), so lists and recovery read few old versions, and check the rest.
 */
export class MongoTransactionStore implements TransactionStore {
  readonly #col: StoredCollection<TransactionVersionDocument>
  readonly #calls: StorageCalls
  readonly #marks: SupersededMarks

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.transactionVersions)
    this.#marks = new SupersededMarks(this.#calls, this.#col)
  }

  /**
   * Inserts the version; a duplicate `_id` means another writer has it. (The flows write the
   * version after one they read, of the account they read it in: that is not checked again.)
   * One round trip: the versions before are marked superseded later, in a batch.
   */
  put(record: TransactionRecord, written?: Partial<WrittenWith>): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(async (signal) => {
      try {
        await this.#col.within(signal).insertOne(toTransactionVersionDocument(record, written))
      } catch (e) {
        if (isDuplicateKey(e)) return false
        throw e
      }
      if (record.version > 0) this.#marks.add(record.id, record.version)
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

  /**
   * Reads unmarked versions that match, in batches, and keeps each transaction's newest (a
   * version may be unmarked while a newer one exists). A batch that ends inside one
   * transaction's versions stops before it, so that the next batch reads all of them; the
   * newest of a transaction, if it matched when the batch was read, is then in the same batch
   * as its older versions. One written since (after the batch, before the check of which
   * versions are newest) is read then, and kept if it matches: all versions of a transaction
   * share its place in the order, so it is listed once, where the batch had it. Two reads a
   * batch, a third only when a batch holds a version whose newest it does not.
   */
  list(merchantAccountId: string, filter: TransactionFilter, seek: Seek): TE.TaskEither<Unavailable, readonly TransactionRecord[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const col = this.#col.within(signal)
      const matching = filterOf(merchantAccountId, filter)
      const batch = seek.limit * 2 + 2
      const out: TransactionRecord[] = []
      for (let from = seek.from; ;) {
        const { filter: key, sort } = keysetRead('created_at', 'descending', { ...seek, from }, 'transaction_id')
        const query = { ...matching, superseded: false, ...key }
        const docs = await col.find(query).sort(sort).limit(batch).toArray()
        const more = docs.length === batch
        const cut = more ? docs.at(-1)?.transaction_id : undefined
        let whole = docs.filter((d) => d.transaction_id !== cut)
        // One transaction's versions fill the batch: read all of them.
        if (whole.length === 0 && cut !== undefined) whole = await col.find({ ...query, transaction_id: cut }).toArray()
        out.push(...(await this.#newestOf(col, whole, matching)).map(recordOf))
        const last = whole.at(-1)
        if (out.length >= seek.limit || !more || last === undefined) return out.slice(0, seek.limit)
        from = O.some([last.created_at, last.transaction_id])
      }
    })
  }

  /**
   * Each transaction of `docs` once, as its newest version: one read of the unmarked versions
   * of their transactions (the newest is never marked) says which that is. The older ones are
   * left out (and marked later). When the newest is not among `docs` (written since they were
   * read, or not matching then), it is read by its `_id` and kept if it matches `matching`, in
   * place of the older one. That is the version newest at the check, marked meanwhile or not:
   * never an older one. Recovery gives no `matching`: there a newer version comes later in the
   * order (`updated_at_ms`, `_id`), so it is read in turn, not out of order here.
   */
  async #newestOf(
    col: BoundedCollection<TransactionVersionDocument>,
    docs: readonly TransactionVersionDocument[],
    matching?: Filter<TransactionVersionDocument>,
  ): Promise<TransactionVersionDocument[]> {
    if (docs.length === 0) return []
    const ids = [...new Set(docs.map((d) => d.transaction_id))]
    const current = await col
      .find({ transaction_id: { $in: ids }, superseded: false }, { projection: { transaction_id: 1, version: 1 } })
      .toArray()
    const newest = new Map<string, number>()
    for (const c of current) if ((newest.get(c.transaction_id) ?? -1) < c.version) newest.set(c.transaction_id, c.version)
    const isNewest = (d: TransactionVersionDocument) => (newest.get(d.transaction_id) ?? d.version) === d.version
    for (const d of docs) if (!isNewest(d)) this.#marks.add(d.transaction_id, newest.get(d.transaction_id) ?? d.version)
    const present = new Set(docs.filter(isNewest).map((d) => d.transaction_id))
    const behind = [...newest].filter(([id]) => !present.has(id)).map(([id, version]) => versionId(id, version))
    const since = matching === undefined || behind.length === 0 ? [] : await col.find({ ...matching, _id: { $in: behind } }).toArray()
    const newer = new Map(since.map((d) => [d.transaction_id, d]))
    const out: TransactionVersionDocument[] = []
    for (const d of docs) {
      const written = newer.get(d.transaction_id)
      if (isNewest(d)) out.push(d)
      else if (written !== undefined) {
        out.push(written)
        newer.delete(d.transaction_id)
      }
    }
    return out
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

  /**
   * The candidates are unmarked pending versions, in (updated_at_ms, _id) order: each
   * transaction's newest version comes after its older ones. Those a newer version superseded
   * are left out (and marked), and more candidates read, until `limit` are found or none is left.
   */
  stale(before: Date, limit: number, after?: StaleFrom): TE.TaskEither<Unavailable, readonly TransactionRecord[]> {
    return this.#calls.attempt(async (signal) => {
      if (limit < 1) return []
      const col = this.#col.within(signal)
      const out: TransactionRecord[] = []
      let from = after === undefined ? undefined : { ms: Date.parse(after.updated_at), id: versionId(after.id, after.version) }
      for (;;) {
        const candidates = await col
          .find({
            superseded: false,
            pending: true,
            updated_at_ms: { $lt: before.getTime(), ...(from === undefined ? {} : { $gte: from.ms }) },
            ...(from === undefined
              ? {}
              : { $or: [{ updated_at_ms: { $gt: from.ms } }, { updated_at_ms: from.ms, _id: { $gt: from.id } }] }),
          })
          .sort({ updated_at_ms: 1, _id: 1 })
          .limit(limit)
          .toArray()
        out.push(...(await this.#newestOf(col, candidates)).map(recordOf))
        const last = candidates.at(-1)
        if (out.length >= limit || candidates.length < limit || last === undefined) return out.slice(0, limit)
        from = { ms: last.updated_at_ms, id: last._id }
      }
    })
  }

  /** Read on its index (`unfolded_updated`): the flag is unset once folded, so it holds only the versions not folded yet. */
  unfolded(before: Date, limit: number): TE.TaskEither<Unavailable, readonly Unfolded[]> {
    return this.#calls.attempt(async (signal) => {
      if (limit < 1) return []
      const docs = await this.#col
        .within(signal)
        .find({ unfolded: true, updated_at_ms: { $lt: before.getTime() } })
        .sort({ updated_at_ms: 1, _id: 1 })
        .limit(limit)
        .toArray()
      return docs.map(unfoldedOf)
    })
  }

  /** The text goes with the flag: the audit log and the deliveries hold what it said from then on. */
  folded(versions: readonly VersionKey[]): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      if (versions.length === 0) return
      await this.#col
        .within(signal)
        .updateMany(
          { _id: { $in: versions.map((v) => versionId(v.transactionId, v.version)) }, unfolded: true },
          { $unset: { written: '', unfolded: '' } },
        )
    })
  }
}

const Written = t.type({ audit: t.readonlyArray(AuditRecord), events: t.readonlyArray(OutboxEntry) })

const recordOf = (d: TransactionVersionDocument): TransactionRecord => {
  const decoded = E.flatMap((u: unknown) => TransactionRecord.decode(u))(E.tryCatch((): unknown => JSON.parse(d.record), E.toError))
  if (E.isLeft(decoded)) throw new UndecodableDocument(COLLECTIONS.transactionVersions, d._id, ['record'])
  return decoded.right
}

const unfoldedOf = (d: TransactionVersionDocument): Unfolded => {
  const decoded = E.flatMap((u: unknown) => Written.decode(u))(E.tryCatch((): unknown => JSON.parse(d.written ?? ''), E.toError))
  if (E.isLeft(decoded)) throw new UndecodableDocument(COLLECTIONS.transactionVersions, d._id, ['written'])
  const version = { merchantAccountId: d.merchant_account_id, transactionId: d.transaction_id, version: d.version }
  return { version, audit: decoded.right.audit, events: decoded.right.events }
}
