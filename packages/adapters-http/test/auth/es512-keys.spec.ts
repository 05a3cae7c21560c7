import { generateKeyPairSync, sign, verify } from 'node:crypto'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { Es512Keys, jwkThumbprint } from '../../src'

const pemOf = (curve: string) => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: curve })
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  }
}

describe('Es512Keys', () => {
  const keys = new Es512Keys()

  it('generates a P-521 pair whose halves match, and reads its public half back with its thumbprint', async () => {
    const made = await keys.generate()()
    if (E.isLeft(made)) throw new Error('no key pair')
    const { privateKeyPem, publicKeyPem } = made.right
    const signature = sign('sha512', Buffer.from('x'), privateKeyPem)
    expect(verify('sha512', Buffer.from('x'), publicKeyPem, signature)).to.equal(true)
    expect(keys.inspect(publicKeyPem)).to.deep.equal(O.some({ thumbprint: jwkThumbprint(publicKeyPem), publicKeyPem }))
  })

  it('reads a PEM with CRLF line ends and surrounding blank lines as the same key, written as Orka writes it', () => {
    const { publicKeyPem } = pemOf('P-521')
    expect(keys.inspect(`\n${publicKeyPem.replace(/\n/g, '\r\n')}\n`)).to.deep.equal(
      O.some({ thumbprint: jwkThumbprint(publicKeyPem), publicKeyPem }),
    )
  })

  it('reads nothing else: a private key, another curve, RSA, a certificate-shaped block, junk around the key, a corrupt body', () => {
    const p521 = pemOf('P-521')
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString()
    for (const pem of [
      p521.privateKeyPem,
      pemOf('P-256').publicKeyPem,
      rsa,
      p521.publicKeyPem.replace(/PUBLIC KEY/g, 'CERTIFICATE'),
      `junk\n${p521.publicKeyPem}`,
      `${p521.publicKeyPem}junk`,
      p521.publicKeyPem.replace('MIGb', 'MIHb'),
      '',
    ])
      expect(keys.inspect(pem), pem.slice(0, 40)).to.deep.equal(O.none)
  })
})
