// The fetch for URLs a caller chooses checks the address before it connects: a server on loopback
// that counts connections sees none for every special-use form of its address (literal, a name that
// resolves to it, IPv6, IPv4-mapped), and the refusal comes at once whether or not anything
// listens. Where private addresses are explicitly allowed the same fetch works, within its time and
// size bounds (a server that trickles, one that stays silent, one that sends too much).
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, ResponseTooLarge } from './guarded-fetch.js';
import { AddressRefused, isPublicAddress } from '../../services/kit/public-address.js';

const portOf = (server: TcpServer | HttpServer) => (server.address() as AddressInfo).port;
const listen = async <S extends TcpServer | HttpServer>(server: S, host = '127.0.0.1') => {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return server;
};
const close = (server: TcpServer | HttpServer | undefined) => new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254',
    '0.0.0.0', '0.1.2.3', '224.0.0.1', '255.255.255.255', '240.0.0.1', '192.0.2.1', '198.18.0.1', '192.0.0.8',
    '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', '2001:db8::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1',
    '::ffff:7f00:1', '::7f00:1', '::127.0.0.1', '::a00:1', '64:ff9b::a00:1', '2002:a00:1::', '2001::1', 'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('guardedFetch', () => {
  /** A TCP server that accepts and stays silent, counting the connections it sees. */
  let silent: TcpServer;
  let connections = 0;
  /** A port nothing listens on (a server bound, then closed). */
  let closedPort: number;
  beforeAll(async () => {
    silent = await listen(createTcpServer((socket) => {
      connections++;
      socket.on('error', () => undefined);
      socket.resume(); // reads (and drops) what comes, so a client's close is seen
    }));
    const closed = await listen(createTcpServer());
    closedPort = portOf(closed);
    await close(closed);
  });
  afterAll(async () => close(silent));

  const publicOnly = guardedFetch();

  it.each([
    ['a loopback literal', (port: number) => `https://127.0.0.1:${port}/c.json`],
    ['a host name resolving to loopback', (port: number) => `https://localhost:${port}/c.json`],
    ['an IPv4-mapped IPv6 literal', (port: number) => `https://[::ffff:127.0.0.1]:${port}/c.json`],
    ['its hexadecimal form', (port: number) => `https://[::ffff:7f00:1]:${port}/c.json`],
    ['0.0.0.0', (port: number) => `https://0.0.0.0:${port}/c.json`],
    ['a shorthand IPv4 literal', (port: number) => `http://127.1:${port}/c.json`],
    ['a decimal IPv4 literal', (port: number) => `http://2130706433:${port}/c.json`],
  ])('refuses %s before connecting: the server sees no connection', async (_case, urlFor) => {
    const before = connections;
    await expect(publicOnly(urlFor(portOf(silent)), {})).rejects.toBeInstanceOf(AddressRefused);
    // Long enough for a connection that had been started to be accepted.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connections).toBe(before);
  });

  it.each(['http://[::1]:1/', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://100.64.0.1/', 'http://[fe80::1]/', 'http://[fd00::1]/'])(
    'refuses %s', async (url) => {
      await expect(publicOnly(url, {})).rejects.toBeInstanceOf(AddressRefused);
    },
  );

  it('refuses the same way whether or not anything listens (no port probe)', async () => {
    const before = connections;
    const refusal = async (url: string) => {
      const error = await publicOnly(url, {}).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(AddressRefused);
      return (error as Error).message.replaceAll(/:\d+/g, ':PORT');
    };
    const listening = await refusal(`https://127.0.0.1:${portOf(silent)}/c.json`);
    expect(await refusal(`https://127.0.0.1:${closedPort}/c.json`)).toBe(listening);
    await refusal(`https://localhost:${portOf(silent)}/c.json`);
    // Long enough for a connection that had been started to be accepted.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connections).toBe(before);
  });

  it('refuses other schemes', async () => {
    await expect(publicOnly('file:///etc/passwd', {})).rejects.toThrow(/not fetched/);
  });

  describe('with private addresses explicitly allowed', () => {
    let documents: HttpServer;
    let base: string;
    beforeAll(async () => {
      documents = await listen(createHttpServer((req, res) => {
        if (req.url === '/c.json') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id":"x"}');
        if (req.url === '/moved') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
        if (req.url === '/large') {
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(16 * 1024, 'a');
          let sent = 0;
          const more = () => {
            while (sent < 64 && res.write(chunk)) sent++;
            if (sent < 64) res.once('drain', more);
            else res.end();
          };
          return more();
        }
        if (req.url === '/declared-large') return res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) }).end();
        if (req.url === '/trickle') {
          res.writeHead(200, { 'content-type': 'application/json' });
          const timer = setInterval(() => res.write(' '), 100);
          res.on('close', () => clearInterval(timer));
          return undefined;
        }
        return res.writeHead(404).end();
      }));
      base = `http://127.0.0.1:${portOf(documents)}`;
    });
    afterAll(async () => {
      documents.closeAllConnections();
      await close(documents);
    });

    const allowed = guardedFetch({ allowPrivateAddresses: true, timeoutMs: 600, maxBytes: 64 * 1024 });

    it('fetches a document, by address and by a name that resolves to loopback', async () => {
      for (const url of [`${base}/c.json`, `http://localhost:${portOf(documents)}/c.json`]) {
        const response = await allowed(url, { headers: { accept: 'application/json' } });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(await response.json()).toEqual({ client_id: 'x' });
      }
    });

    it('never follows a redirect', async () => {
      const response = await allowed(`${base}/moved`, { redirect: 'follow' });
      expect(response.status).toBe(302);
    });

    it('fails a body past the size bound, and a declared one at once', async () => {
      const response = await allowed(`${base}/large`, {});
      await expect(response.arrayBuffer()).rejects.toBeInstanceOf(ResponseTooLarge);
      await expect(allowed(`${base}/declared-large`, {})).rejects.toBeInstanceOf(ResponseTooLarge);
    });

    it('fails a body that trickles past the time bound', async () => {
      // The server never ends the body: only the bound ends the read.
      const response = await allowed(`${base}/trickle`, {});
      await expect(response.text()).rejects.toThrow();
    });

    it('fails a server that never answers within the time bound', async () => {
      const started = performance.now();
      await expect(allowed(`http://127.0.0.1:${portOf(silent)}/c.json`, {})).rejects.toThrow();
      // The server never answers: only the bound ends the call, and not before it is due.
      expect(performance.now() - started).toBeGreaterThanOrEqual(500);
    });

    it('ends with the caller’s own abort signal', async () => {
      await expect(allowed(`http://127.0.0.1:${portOf(silent)}/c.json`, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    });
  });
});
