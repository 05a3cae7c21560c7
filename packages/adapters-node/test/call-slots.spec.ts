import { expect } from 'chai'
import { CallSlots } from '../src/connectors/call-slots'
import { NotSent } from '../src/connectors/provider-http'

/** A call that runs until `finish`. */
const held = () => {
  let finish: (v: string) => void = () => undefined
  const done = new Promise<string>((resolve) => (finish = resolve))
  return { done, finish }
}
const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('CallSlots: a connector’s calls in flight, bounded', () => {
  it('runs at most `limit` at once; the others start in the order they came as slots free', async () => {
    const slots = new CallSlots(2)
    const never = new AbortController().signal
    const calls = [held(), held(), held(), held()]
    const started: number[] = []
    const runs = calls.map((c, i) =>
      slots.run(never, () => {
        started.push(i)
        return c.done
      }),
    )
    await tick()
    expect([started, slots.state]).to.deep.equal([[0, 1], { inFlight: 2, waiting: 2 }])
    calls[1]?.finish('b')
    await tick()
    expect(started).to.deep.equal([0, 1, 2])
    calls[0]?.finish('a')
    calls[2]?.finish('c')
    calls[3]?.finish('d')
    expect(await Promise.all(runs)).to.deep.equal(['a', 'b', 'c', 'd'])
    expect(slots.state).to.deep.equal({ inFlight: 0, waiting: 0 })
  })

  it('gives a call that gives up waiting NotSent, never runs it, and keeps the slot count right', async () => {
    const slots = new CallSlots(1)
    const first = held()
    const running = slots.run(new AbortController().signal, () => first.done)
    const abort = new AbortController()
    let ran = false
    const waiting = slots.run(abort.signal, () => {
      ran = true
      return Promise.resolve('never')
    })
    await tick()
    abort.abort()
    const refused = await waiting.then(
      () => null,
      (e: unknown) => e,
    )
    expect(refused).to.be.instanceOf(NotSent)
    first.finish('done')
    expect(await running).to.equal('done')
    expect([ran, slots.state]).to.deep.equal([false, { inFlight: 0, waiting: 0 }])
    const aborted = new AbortController()
    aborted.abort()
    expect(await slots.run(aborted.signal, () => Promise.resolve('free slot: runs'))).to.equal('free slot: runs')
  })

  it('frees the slot of a call that fails', async () => {
    const slots = new CallSlots(1)
    const never = new AbortController().signal
    const failed = await slots.run(never, () => Promise.reject(new Error('socket hang up'))).catch((e: unknown) => e)
    expect(failed).to.be.instanceOf(Error)
    expect(await slots.run(never, () => Promise.resolve('next'))).to.equal('next')
  })
})
