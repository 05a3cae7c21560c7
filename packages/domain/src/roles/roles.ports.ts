import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { Role } from './role'

export interface RoleRepository {
  /** Keyset read in ascending (slug, id) order; see `Seek`. */
  list(seek: Seek): TE.TaskEither<Unavailable, readonly Role[]>
  /** The roles with these slugs; unknown slugs are skipped. */
  findBySlugs(slugs: readonly string[]): TE.TaskEither<Unavailable, readonly Role[]>
  /** Creates or replaces the role with this slug, keeping the stored id if there is one. */
  upsert(role: Role): TE.TaskEither<Unavailable, void>
}
export const RoleRepository = token<RoleRepository>('RoleRepository')
