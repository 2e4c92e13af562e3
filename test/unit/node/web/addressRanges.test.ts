import assert from 'node:assert/strict';
import { localRange } from '../../../../src/node/web/addressRanges';

describe('localRange', () => {
  it('refuses loopback, private, link-local, unique-local, CGNAT, multicast and unspecified addresses in every encoding', () => {
    const local = ['127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
      '::1', '::', '[::1]', 'fe80::1%eth0', 'fd12:3456::1', 'fc00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::127.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '2001:0::1', 'not-an-ip'];
    for (const address of local) assert.ok(localRange(address), `${address} is refused`);
    assert.match(localRange('::ffff:7f00:1')!, /loopback address \(inside an IPv6 address\)/);
    assert.match(localRange('169.254.169.254')!, /link-local/);
  });

  it('lets public addresses through, also when an IPv6 address carries a public IPv4 one', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::6810:84e5', '::ffff:8.8.8.8', '2002:0808:0808::1']) assert.equal(localRange(address), undefined, address);
  });
});
