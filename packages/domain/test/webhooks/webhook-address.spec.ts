import { expect } from 'chai'
import { isBlockedAddress, isLocalHostName, parseIpv6 } from '../../src/webhooks/webhook-address'
import { urlRefusal, urlViolations } from '../../src/webhooks/webhook-subscription'

describe('isBlockedAddress', () => {
  const blocked = [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '198.18.0.1',
    '192.0.0.8',
    '::',
    '::1',
    '[::1]',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'febf::1',
    'fec0::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
  ]
  for (const a of blocked) it(`blocks ${a}`, () => expect(isBlockedAddress(a)).to.equal(true))

  const open = [
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '11.0.0.1',
    '2001:4860:4860::8888',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    'fbff::1',
    'fe7f::1',
  ]
  for (const a of open) it(`lets ${a} through`, () => expect(isBlockedAddress(a)).to.equal(false))

  it('judges nothing that is not an address', () => {
    for (const s of ['example.com', '', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1::2::3', 'fe80::1%eth0', ':::1'])
      expect(isBlockedAddress(s), s).to.equal(false)
  })
})

describe('parseIpv6', () => {
  it('reads compressed, full and dotted forms alike', () => {
    const one = parseIpv6('::ffff:7f00:1')
    expect(parseIpv6('0:0:0:0:0:ffff:7f00:0001')).to.equal(one)
    expect(parseIpv6('::ffff:127.0.0.1')).to.equal(one)
    expect(parseIpv6('::')).to.equal(0n)
    expect(parseIpv6('1::')).to.equal(1n << 112n)
  })
  it('refuses malformed text', () => {
    for (const s of ['1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '12345::', 'g::1', '::1.2.3', '1:2:3:4:5:6:7::8'])
      expect(parseIpv6(s), s).to.equal(undefined)
  })
})

describe('isLocalHostName', () => {
  it('knows the names that always mean this machine', () => {
    for (const h of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'localhost.localdomain'])
      expect(isLocalHostName(h), h).to.equal(true)
    for (const h of ['localhost.example.com', 'mylocalhost', 'example.com']) expect(isLocalHostName(h), h).to.equal(false)
  })
})

describe('urlRefusal', () => {
  const strict = { requireHttps: false, allowPrivateAddresses: false }
  const PRIVATE = 'The URL must not point at a loopback, private, link-local, unspecified or multicast address'

  it('accepts a public name or address', () => {
    for (const u of ['https://hooks.merchant.example/orka', 'http://203.0.113.7:8080/x', 'https://[2001:db8::1]/hook'])
      expect(urlRefusal(u, strict), u).to.equal(undefined)
  })

  it('refuses loopback, private, link-local and metadata addresses in any notation, and localhost', () => {
    for (const u of [
      'http://127.0.0.1/x',
      'http://localhost:8080/',
      'http://LOCALHOST/',
      'http://api.localhost/',
      'http://10.1.2.3/',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:9000/',
      'http://[fd00::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://0/',
      'http://[::]/',
      'http://224.0.0.1/',
    ])
      expect(urlRefusal(u, strict), u).to.equal(PRIVATE)
  })

  it('lets private addresses through when the policy allows them', () => {
    expect(urlRefusal('http://127.0.0.1:9000/x', { requireHttps: false, allowPrivateAddresses: true })).to.equal(undefined)
  })

  it('requires https in production, before anything else', () => {
    const production = { requireHttps: true, allowPrivateAddresses: true }
    expect(urlRefusal('http://hooks.merchant.example/x', production)).to.equal('The URL must use https in production')
    expect(urlRefusal('https://hooks.merchant.example/x', production)).to.equal(undefined)
  })

  it('names the refused URL and token URL by their place in the body', () => {
    expect(
      urlViolations(
        {
          url: 'http://10.0.0.1/hook',
          authentication: { kind: 'oauth_client_credentials', client_id: 'c', client_secret: 's', token_url: 'http://127.0.0.1/token' },
        },
        strict,
      ),
    ).to.deep.equal([
      { path: ['url'], msg: PRIVATE },
      { path: ['authentication', 'token_url'], msg: PRIVATE },
    ])
    expect(urlViolations({ url: null, authentication: { kind: 'basic', username: 'u', password: 'p' } }, strict)).to.deep.equal([])
  })
})
