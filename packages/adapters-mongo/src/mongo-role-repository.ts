import * as TE from 'fp-ts/TaskEither'
import { Role, RoleRepository, Seek, Unavailable } from '@orka/domain'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { keysetRead } from './keyset-read'
import { storageCalls, StorageCalls } from './storage-calls'
import { fromRoleDocument, RoleDocument, toRoleDocument } from './role.document'

export class MongoRoleRepository implements RoleRepository {
  readonly #col: StoredCollection<RoleDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.roles)
  }

  list(seek: Seek): TE.TaskEither<Unavailable, readonly Role[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const { filter, sort, limit } = keysetRead('slug', 'ascending', seek)
      return (await this.#col.within(signal).find(filter).sort(sort).limit(limit).toArray()).map(fromRoleDocument)
    })
  }

  findBySlugs(slugs: readonly string[]): TE.TaskEither<Unavailable, readonly Role[]> {
    return this.#calls.attempt(async (signal) => {
      if (slugs.length === 0) return []
      return (
        await this.#col
          .within(signal)
          .find({ slug: { $in: [...new Set(slugs)] } })
          .toArray()
      ).map(fromRoleDocument)
    })
  }

  /**
   * The slug is the natural key (unique index), the id is kept from the first upsert. Without
   * transactions: replace the stored role by its id, or insert; a racing insert of the same slug
   * loses on the unique index and goes round again to replace the winner.
   */
  upsert(role: Role): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      for (let i = 0; i < 5; i++) {
        const stored = await this.#col.within(signal).findOne({ slug: role.slug }, { projection: { _id: 1 } })
        if (stored !== null) {
          const doc = toRoleDocument({ ...role, id: stored._id })
          const r = await this.#col
            .within(signal)
            .replaceOne({ _id: stored._id, slug: role.slug }, doc)
            .catch((e: unknown) => {
              if (isDuplicateKey(e)) return null
              throw e
            })
          if (r !== null && r.matchedCount > 0) return
        } else {
          try {
            await this.#col.within(signal).insertOne(toRoleDocument(role))
            return
          } catch (e) {
            if (!isDuplicateKey(e)) throw e
            const owner = await this.#col.within(signal).findOne({ _id: role.id }, { projection: { slug: 1 } })
            if (owner !== null && owner.slug !== role.slug)
              throw new Error(`role id ${role.id} already belongs to role ${owner.slug}`, { cause: e })
          }
        }
      }
      throw new Error(`upserting role ${role.slug} did not settle after 5 attempts`)
    })
  }
}
