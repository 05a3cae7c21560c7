import { expect } from 'chai'
import { restartDelayMs } from '../../src/cluster'
import { readWorkerMessage } from '../../src/cluster-worker'

describe('cluster primary', () => {
  it('restarts a dying worker after 0.5 s, doubling for each death in a row, never more than 30 s', () => {
    expect(Array.from({ length: 9 }, (_, i) => restartDelayMs(i))).to.deep.equal([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
  })

  it('reads only the messages its workers send', () => {
    expect(readWorkerMessage({ orka: 'listening', url: 'http://127.0.0.1:8080' })).to.deep.equal({
      orka: 'listening',
      url: 'http://127.0.0.1:8080',
    })
    expect(readWorkerMessage({ orka: 'start-failed', reason: 'listen EADDRINUSE' })).to.deep.equal({
      orka: 'start-failed',
      reason: 'listen EADDRINUSE',
    })
    for (const other of [null, 'listening', { orka: 'listening' }, { orka: 'stopped', url: 'x' }, { cmd: 'NODE_CLUSTER' }])
      expect(readWorkerMessage(other), JSON.stringify(other)).to.equal(undefined)
  })
})
