import { Role } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/** A role with its id as `_id`; `slug` is unique (index `slug_unique`). */
export interface RoleDocument extends Doc {
  slug: string
}

export const toRoleDocument = ({ id, ...rest }: Role): RoleDocument => ({ _id: id, ...rest })

export const fromRoleDocument = decoder(COLLECTIONS.roles, Role, (d) => ({ ...pick(d, fieldsOf(Role)), id: d._id }))
