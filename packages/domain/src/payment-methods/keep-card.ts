import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Buyer } from '../buyers/buyer'
import { paymentCardFingerprint } from '../cards/card-details'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { Unavailable, unavailable } from '../shared/errors'
import { cardSummary, expiryMonth } from '../cards/card-number'
import { AuditActor } from '../audit/audit-entry'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { WebhookEvents } from '../webhooks/webhook-events.ports'
import { PaymentMethod, paymentMethodResource } from './payment-method.codecs'
import { PaymentMethodVault } from './payment-method.ports'

/** What keeping a card in the vault needs. */
export interface KeepCardDeps {
  readonly paymentMethods: PaymentMethodVault
  readonly box: SecretBox
  readonly mac: Mac
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly events: WebhookEvents
  readonly audited: RecordAudited
}

/** A card to keep: never its security code, which lives only for the authorization it came with. */
export interface CardToKeep {
  readonly merchantAccountId: string
  readonly actor: AuditActor
  readonly buyer: Buyer | null
  readonly number: string
  readonly expirationDate: string
  readonly externalIdentifier: string | null
  /** `succeeded` when stored on its own; `processing` until the payment that stores it (`store: true`) ends. */
  readonly status: 'succeeded' | 'processing'
  /** The id a new method takes (an idempotent request's reserved one); null: a fresh one. */
  readonly id: string | null
}

/** Whether `sent` names a later month than `stored`: a renewed card with the same number. */
const later = (sent: string, stored: string | null | undefined): boolean => {
  const a = expiryMonth(sent)
  const b = stored == null ? null : expiryMonth(stored)
  return a !== null && (b === null || a.year * 12 + a.month > b.year * 12 + b.month)
}

const newMethod = (deps: Pick<KeepCardDeps, 'mac' | 'clock' | 'ids'>, c: CardToKeep, fingerprint: string): PaymentMethod => {
  const now = deps.clock.now().toISOString()
  const { bin, last4, scheme } = cardSummary(c.number)
  return {
    type: 'payment-method',
    id: c.id ?? deps.ids.uuid(),
    merchant_account_id: c.merchantAccountId,
    method: 'card',
    mode: 'card',
    status: c.status,
    label: last4,
    scheme,
    additional_schemes: null,
    expiration_date: c.expirationDate,
    fingerprint,
    details: { bin, card_type: null },
    approval_url: null,
    country: null,
    currency: null,
    last_replaced_at: null,
    has_replacement: false,
    scheme_transaction_id: null,
    scheme_transaction_id_scheme: null,
    transaction_link_id: null,
    buyer: c.buyer,
    external_identifier: c.externalIdentifier,
    usage_count: 0,
    cit_usage_count: 0,
    last_used_at: null,
    cit_last_used_at: null,
    created_at: now,
    updated_at: now,
  }
}

/**
 * Keeps a card for a buyer (or none): one method per account, buyer and card fingerprint. A card
 * the vault holds already is answered as that method, its expiry moved to the one sent when that
 * is later (a renewed card keeps its number); a new one is inserted with its
 * `payment-method.created` event in the outbox first. Of racing requests for one card, one
 * inserts and the others answer its method. The number is sealed; the security code is never kept.
 */
export const keepCard =
  (deps: KeepCardDeps, c: CardToKeep): TE.TaskEither<Unavailable, PaymentMethod> =>
  async () => {
    const fingerprint = paymentCardFingerprint(deps.mac, c.number)
    const owner = c.buyer?.id ?? null
    for (let tries = 0; tries < 2; tries++) {
      const stored = await deps.paymentMethods.findByFingerprint(c.merchantAccountId, owner, fingerprint)()
      if (E.isLeft(stored)) return stored
      if (O.isSome(stored.right)) {
        const { method } = stored.right.value
        if (!later(c.expirationDate, method.expiration_date)) return E.right(method)
        const renewed = await deps.paymentMethods.update(
          c.merchantAccountId,
          method.id,
          { expiration_date: c.expirationDate },
          deps.clock.now().toISOString(),
        )()
        if (E.isLeft(renewed)) return renewed
        if (O.isSome(renewed.right)) return E.right(renewed.right.value)
        continue // deleted meanwhile: store it anew
      }
      const method = newMethod(deps, c, fingerprint)
      const kept = await deps.events.raise('payment-method.created', c.merchantAccountId, method)()
      if (E.isLeft(kept)) return kept
      const inserted = await deps.audited(
        changeOf(c, paymentMethodResource(method), 'created', 'payment-method-present'),
        deps.events.record(kept.right, deps.paymentMethods.insert({ method, sealed_number: deps.box.seal(c.number) })),
      )()
      if (E.isRight(inserted)) return E.right(method)
      if (inserted.left._tag !== 'Duplicate') return E.left(inserted.left)
      // A racing request stored the card first: its method is the answer.
    }
    return E.left(unavailable(new Error('the vault kept clashing on one card')))
  }
