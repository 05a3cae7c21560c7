/**
 * A bounded map that forgets the least recently used entry first (Map keeps insertion order,
 * and a read moves its entry to the end). With `idle`, an entry not read for `idle.ms` is
 * forgotten too: each call first drops such entries from the oldest end, so a burst of keys used
 * once does not hold memory after the traffic that brought it has gone.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; usedAt: number }>()
  constructor(
    private readonly capacity: number,
    private readonly idle?: { readonly ms: number; readonly now: () => number },
  ) {}

  get(key: K): V | undefined {
    const now = this.forgetIdle()
    const e = this.entries.get(key)
    if (e === undefined) return undefined
    this.entries.delete(key)
    e.usedAt = now
    this.entries.set(key, e)
    return e.value
  }

  set(key: K, value: V): void {
    const now = this.forgetIdle()
    if (this.capacity <= 0) return
    this.entries.delete(key)
    while (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next()
      if (oldest.done) break
      this.entries.delete(oldest.value)
    }
    this.entries.set(key, { value, usedAt: now })
  }

  delete(key: K): void {
    this.entries.delete(key)
  }

  get size(): number {
    return this.entries.size
  }

  /** Drops idle entries (oldest first, so it stops at the first one in use); returns now. */
  private forgetIdle(): number {
    if (this.idle === undefined) return 0
    const now = this.idle.now()
    for (const [key, e] of this.entries) {
      if (now - e.usedAt < this.idle.ms) break
      this.entries.delete(key)
    }
    return now
  }
}
