import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as T from 'fp-ts/Task'
import { SecretBox } from '../shared/crypto.ports'
import { askConnector } from './ask-connector'
import { splitNumber } from './gift-card'
import { GiftCard, GiftCardErrorCode, GiftCardService, GiftCardSummary } from './gift-card.codecs'
import { BalanceResult, ConnectorError, GiftCardConnectors, VaultedGiftCard } from './gift-card.ports'

export interface BalanceCheckDeps {
  readonly giftCardConnectors: GiftCardConnectors
  readonly box: SecretBox
}

/** A card to ask about: one given by number and PIN (used, then forgotten), or a stored one. */
export type BalanceSubject =
  | { readonly kind: 'unstored'; readonly number: string; readonly pin: string; readonly service: GiftCardService | null }
  | { readonly kind: 'stored'; readonly vaulted: VaultedGiftCard }

const unstoredSummary = (merchantAccountId: string, number: string): GiftCardSummary => ({
  type: 'gift-card',
  id: null,
  merchant_account_id: merchantAccountId,
  ...splitNumber(number),
  last_used_at: null,
  usage_count: 0,
  cit_last_used_at: null,
  cit_usage_count: 0,
  expiration_date: null,
  currency: null,
  balance: null,
  balance_error_code: null,
  balance_raw_error_code: null,
  balance_raw_error_message: null,
})

const storedSummary = (card: GiftCard): GiftCardSummary => ({
  ...unstoredSummary(card.merchant_account_id, ''),
  id: card.id,
  bin: card.bin,
  sub_bin: card.sub_bin,
  last4: card.last4,
  last_used_at: card.last_used_at ?? null,
  usage_count: card.usage_count,
  cit_last_used_at: card.cit_last_used_at ?? null,
  cit_usage_count: card.cit_usage_count,
  expiration_date: card.expiration_date ?? null,
})

type Checked = E.Either<GiftCardErrorCode, Extract<BalanceResult, { _tag: 'Balance' }>>

/**
 * The service's answer for one card, as a summary: its balance, or the `balance_error_code` of
 * why there is none. Nothing here fails the request: the service refusing the card, failing,
 * not answering (`service_network_error`) or not being configured for the card
 * (`invalid_service_configuration`) is that card's answer. The raw provider code and message
 * stay null: a connector's reasons are ours, not the provider's, and are not shown.
 */
export const checkBalance =
  (deps: BalanceCheckDeps, merchantAccountId: string) =>
  (subject: BalanceSubject): T.Task<GiftCardSummary> =>
  async () => {
    const [base, service, number, pin] =
      subject.kind === 'unstored'
        ? [unstoredSummary(merchantAccountId, subject.number), subject.service, subject.number, subject.pin]
        : [
            storedSummary(subject.vaulted.card),
            subject.vaulted.card.gift_card_service,
            deps.box.open(subject.vaulted.sealed_number),
            subject.vaulted.sealed_pin === null ? null : deps.box.open(subject.vaulted.sealed_pin),
          ]
    const checked = await ask(deps, service, number, pin)()
    return E.isLeft(checked)
      ? { ...base, balance_error_code: checked.left }
      : {
          ...base,
          balance: checked.right.balance,
          currency: checked.right.currency,
          expiration_date: checked.right.expirationDate ?? base.expiration_date,
        }
  }

/** A balance check has no decline: a connector declining is the card not known. */
const CONNECTOR_FAILURES: Readonly<Record<ConnectorError['_tag'], GiftCardErrorCode>> = {
  CardDeclined: 'invalid_gift_card',
  ServiceFailed: 'service_error',
  ServiceTimeout: 'service_network_error',
}

const ask =
  (deps: BalanceCheckDeps, service: GiftCardService | null, number: string, pin: string | null): T.Task<Checked> =>
  async () => {
    if (service === null) return E.left('invalid_service_configuration')
    const connector = deps.giftCardConnectors.forDefinition(service.gift_card_service_definition_id)
    if (O.isNone(connector)) return E.left('invalid_service_configuration')
    const answer = await askConnector(BalanceResult, pin === null ? [number] : [number, pin], () =>
      connector.value.balance({ service, number, pin }),
    )()
    if (E.isLeft(answer)) return E.left(CONNECTOR_FAILURES[answer.left._tag])
    return answer.right._tag === 'Refused' ? E.left(answer.right.errorCode) : E.right(answer.right)
  }
