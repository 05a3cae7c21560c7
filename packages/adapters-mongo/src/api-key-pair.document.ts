import { ApiKeyPair } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * A key with its id as `_id`, its optional fields present only when the record has them, so
 * that it reads back exactly as stored. Keys stored before keys were made by API have none of
 * them, and read back without them.
 */
export interface ApiKeyPairDocument extends Doc {
  thumbprint: string
  public_key_pem: string
  merchant_account_id: string | null
  roles: string[]
  revoked: boolean
  created_at: string
  display_name?: string
  active?: boolean
  updated_at?: string
  last_used_at?: string
  creator?: ApiKeyPair['creator']
}

export const toApiKeyPairDocument = ({ id, ...rest }: ApiKeyPair): ApiKeyPairDocument => ({ _id: id, ...rest })

export const fromApiKeyPairDocument = decoder(COLLECTIONS.apiKeyPairs, ApiKeyPair, (d) => ({ ...pick(d, fieldsOf(ApiKeyPair)), id: d._id }))
