import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { UpdateFilter } from 'mongodb'
import {
  learnedFacts,
  StoredCardFacts,
  Duplicate,
  duplicate,
  PaymentMethod,
  PaymentMethodChanges,
  PaymentMethodFilter,
  PaymentMethodStatus,
  PaymentMethodVault,
  Seek,
  Unavailable,
  VaultedPaymentMethod,
} from '@orka/domain'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { keysetRead, ReadPlan } from './keyset-read'
import { storageCalls, StorageCalls } from './storage-calls'
import { Turns } from './turns'
import {
  fromVaultedPaymentMethodDocument,
  toVaultedPaymentMethodDocument,
  VaultedPaymentMethodDocument,
} from './vaulted-payment-method.document'

type Update = UpdateFilter<VaultedPaymentMethodDocument>
// The driver's types accept no `$inc` or `$set` of a field nested in `method` (its NotAcceptedFields): the shapes are checked here instead.
const update = (u: { $set: Record<string, unknown>; $inc?: Record<string, number> }) => u as unknown as Update

// Listed so that a key added to `PaymentMethodChanges` fails to compile until `update` applies it.
const CHANGEABLE = {
  expiration_date: true,
  external_identifier: true,
  scheme_transaction_id: true,
  scheme_transaction_id_scheme: true,
  transaction_link_id: true,
} satisfies Record<keyof PaymentMethodChanges, true>

/** The query behind `list` (exported for tests, not by the package index). */
export const paymentMethodListRead = (merchantAccountId: string, filter: PaymentMethodFilter, seek: Seek): ReadPlan => {
  const k = keysetRead('method.created_at', 'descending', seek)
  const scope: Record<string, unknown> = { merchant_account_id: merchantAccountId }
  if (filter.buyer_id !== undefined) scope.owner = filter.buyer_id
  if (filter.status !== undefined) scope['method.status'] = { $in: filter.status }
  if (filter.external_identifier !== undefined) scope['method.external_identifier'] = filter.external_identifier
  return { ...k, filter: { ...scope, ...k.filter } }
}

export class MongoPaymentMethodVault implements PaymentMethodVault {
  readonly #col: StoredCollection<VaultedPaymentMethodDocument>
  readonly #calls: StorageCalls
  /**
   * MongoDB applies an update atomically; FerretDB 1.24 runs one as a read then a write of the
   * whole document, so updates of one method (uses, settling, changes) take turns within this
   * process, and only two instances updating the same method at the same moment may lose one.
   */
  readonly #writes = new Turns()

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.vaultedPaymentMethods)
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedPaymentMethod>> {
    return this.#findOne({ _id: id, merchant_account_id: merchantAccountId })
  }

  findByFingerprint(
    merchantAccountId: string,
    owner: string | null,
    fingerprint: string,
  ): TE.TaskEither<Unavailable, O.Option<VaultedPaymentMethod>> {
    return this.#findOne({ merchant_account_id: merchantAccountId, owner, fingerprint })
  }

  /** Atomic through the unique (merchant_account_id, owner, fingerprint) index: of racing inserts one wins. */
  insert(v: VaultedPaymentMethod): TE.TaskEither<Duplicate | Unavailable, void> {
    const doc = toVaultedPaymentMethodDocument(v)
    return this.#calls.attemptEither(async (signal): Promise<E.Either<Duplicate, void>> => {
      try {
        await this.#col.within(signal).insertOne(doc)
        return E.right(undefined)
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
      const holder = await this.#col
        .within(signal)
        .findOne(
          { merchant_account_id: doc.merchant_account_id, owner: doc.owner, fingerprint: doc.fingerprint ?? null },
          { projection: { _id: 1 } },
        )
      // No holder: the clash was on the method id itself.
      return E.left(duplicate('PaymentMethod', holder?._id ?? doc._id))
    })
  }

  list(merchantAccountId: string, filter: PaymentMethodFilter, seek: Seek): TE.TaskEither<Unavailable, readonly PaymentMethod[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const { filter: f, sort, limit } = paymentMethodListRead(merchantAccountId, filter, seek)
      return (await this.#col.within(signal).find(f).sort(sort).limit(limit).toArray()).map(
        (d) => fromVaultedPaymentMethodDocument(d).method,
      )
    })
  }

  /** Served by the `merchant_owner_created` index, as a buyer-filtered list is. */
  forBuyer(
    merchantAccountId: string,
    buyerId: string,
    statuses: readonly PaymentMethodStatus[],
    limit: number,
  ): TE.TaskEither<Unavailable, readonly PaymentMethod[]> {
    return this.#calls.attempt(async (signal) => {
      // A limit of 0 means none to the server.
      if (limit < 1) return []
      return (
        await this.#col
          .within(signal)
          .find({ merchant_account_id: merchantAccountId, owner: buyerId, 'method.status': { $in: [...statuses] } })
          .sort({ 'method.created_at': -1, _id: -1 })
          .limit(limit)
          .toArray()
      ).map((d) => fromVaultedPaymentMethodDocument(d).method)
    })
  }

  update(
    merchantAccountId: string,
    id: string,
    changes: PaymentMethodChanges,
    at: string,
  ): TE.TaskEither<Unavailable, O.Option<PaymentMethod>> {
    const $set: Record<string, unknown> = { 'method.updated_at': at }
    for (const k of Object.keys(CHANGEABLE) as (keyof PaymentMethodChanges)[])
      if (changes[k] !== undefined) $set[`method.${k}`] = changes[k]
    return this.#calls.attempt((signal) =>
      this.#writes.run(id, async () => {
        const d = await this.#col
          .within(signal)
          .findOneAndUpdate({ _id: id, merchant_account_id: merchantAccountId }, update({ $set }), { returnDocument: 'after' })
        return d === null ? O.none : O.some(fromVaultedPaymentMethodDocument(d).method)
      }),
    )
  }

  /** One conditional update: the filter admits only the statuses the outcome may replace. */
  settle(
    merchantAccountId: string,
    id: string,
    outcome: 'succeeded' | 'failed',
    at: string,
    learned?: StoredCardFacts,
  ): TE.TaskEither<Unavailable, boolean> {
    const from = outcome === 'succeeded' ? { $ne: 'succeeded' } : 'processing'
    // What the service told of the card, field by field (a stored card always has its `details`).
    const told = outcome === 'succeeded' ? learnedFacts({ details: null }, learned) : {}
    const facts = {
      ...(told.details === undefined ? {} : { 'method.details.card_type': told.details?.card_type }),
      ...(told.scheme_transaction_id === undefined
        ? {}
        : {
            'method.scheme_transaction_id': told.scheme_transaction_id,
            'method.scheme_transaction_id_scheme': told.scheme_transaction_id_scheme,
          }),
    }
    const settled = update({ $set: { 'method.status': outcome, 'method.updated_at': at, ...facts } })
    return this.#calls.attempt((signal) =>
      this.#writes.run(
        id,
        async () =>
          (await this.#col.within(signal).updateOne({ _id: id, merchant_account_id: merchantAccountId, 'method.status': from }, settled))
            .matchedCount === 1,
      ),
    )
  }

  recordUse(merchantAccountId: string, id: string, at: string, customerInitiated: boolean): TE.TaskEither<Unavailable, boolean> {
    const used = customerInitiated
      ? update({
          $inc: { 'method.usage_count': 1, 'method.cit_usage_count': 1 },
          $set: { 'method.last_used_at': at, 'method.cit_last_used_at': at },
        })
      : update({ $inc: { 'method.usage_count': 1 }, $set: { 'method.last_used_at': at } })
    return this.#calls.attempt((signal) =>
      this.#writes.run(
        id,
        async () =>
          (await this.#col.within(signal).updateOne({ _id: id, merchant_account_id: merchantAccountId }, used)).matchedCount === 1,
      ),
    )
  }

  /** Removes the document itself: the sealed number goes with it. */
  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(
      async (signal) => (await this.#col.within(signal).deleteOne({ _id: id, merchant_account_id: merchantAccountId })).deletedCount === 1,
    )
  }

  deleteByBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, number> {
    return this.#calls.attempt(
      async (signal) =>
        (await this.#col.within(signal).deleteMany({ merchant_account_id: merchantAccountId, owner: buyerId })).deletedCount,
    )
  }

  #findOne(filter: Partial<VaultedPaymentMethodDocument>): TE.TaskEither<Unavailable, O.Option<VaultedPaymentMethod>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromVaultedPaymentMethodDocument)(O.fromNullable(await this.#col.within(signal).findOne(filter))),
    )
  }
}
