import { ApiKeyPair } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

export interface ApiKeyPairDocument extends Doc {
  thumbprint: string
  public_key_pem: string
  merchant_account_id: string | null
  roles: string[]
  revoked: boolean
  created_at: string
}

export const toApiKeyPairDocument = ({ id, ...rest }: ApiKeyPair): ApiKeyPairDocument => ({ _id: id, ...rest })

export const fromApiKeyPairDocument = decoder(COLLECTIONS.apiKeyPairs, ApiKeyPair, (d) => ({ ...pick(d, fieldsOf(ApiKeyPair)), id: d._id }))
