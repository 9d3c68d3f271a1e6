import t from 'tap';
import { hasControlCharacters } from '@gsp/platform-contract';
import { displayName, DISPLAY_NAME_MAX_LENGTH } from '../src/console-bff/display-name.js';
import { Browser } from '@gsp/test-kit/oidc';
import { signIn, startConsoleStack } from './console-auth-stack.js';
import type { ConsoleStack } from './console-auth-stack.js';

/*
 * The console's header names the signed-in user as people know them, not by the OIDC subject:
 * GET /console/auth/session answers a `name` kept with the session at sign-in.
 */
const CLAIMS = new Map<string, Record<string, unknown>>([
  ['alice', { name: 'Alice Example', email: 'alice@example.test', preferred_username: 'alice' }],
  ['bob', { email: 'bob@example.test', preferred_username: 'bob' }],
  ['carol', { preferred_username: 'carol.c' }],
  ['dan', { name: ' \u0007\t', email: 'dan@example.test' }],
  ['mallory', { name: `\u202eMallory\r\nSet-Cookie: x=1\u0000 ${'m'.repeat(300)}` }],
  ['nobody', {}],
]);
const claims = (login: string) => CLAIMS.get(login) ?? {};

async function sessionOf(stack: ConsoleStack, login: string): Promise<{ subject: string; name: string }> {
  const browser = new Browser();
  const { response } = await signIn(browser, stack, login);
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  const res = await browser.fetch(`${stack.front}/console/auth/session`);
  return (await res.json()) as { subject: string; name: string };
}

t.test(
  'the session is named by the ID token: name, else email, else preferred_username, else the subject',
  async (t) => {
    const stack = await startConsoleStack(t, { replicas: 1, provider: { claims, idTokenClaims: true } });
    t.match(
      await sessionOf(stack, 'alice'),
      { signedIn: true, subject: `${stack.issuer}#alice`, name: 'Alice Example' },
      'name',
    );
    t.equal((await sessionOf(stack, 'bob')).name, 'bob@example.test', 'no name: the email');
    t.equal((await sessionOf(stack, 'carol')).name, 'carol.c', 'no name nor email: the preferred username');
    t.equal((await sessionOf(stack, 'dan')).name, 'dan@example.test', 'a name of blanks and controls is no name');
    t.equal((await sessionOf(stack, 'nobody')).name, `${stack.issuer}#nobody`, 'nothing else: the subject');
    const subject = (await sessionOf(stack, 'nobody')).subject;
    t.equal(subject, `${stack.issuer}#nobody`, 'the subject is still the subject');
  },
);

t.test('a provider that keeps profile claims out of ID tokens is asked for its user info', async (t) => {
  const stack = await startConsoleStack(t, { replicas: 1, provider: { claims } });
  t.equal((await sessionOf(stack, 'alice')).name, 'Alice Example');
  t.equal((await sessionOf(stack, 'carol')).name, 'carol.c');
  t.equal((await sessionOf(stack, 'nobody')).name, `${stack.issuer}#nobody`);
});

t.test('a name with control characters or of any length is shown as one bounded line', async (t) => {
  const stack = await startConsoleStack(t, { replicas: 1, provider: { claims, idTokenClaims: true } });
  const { name } = await sessionOf(stack, 'mallory');
  t.notOk(hasControlCharacters(name) || name.includes('\u202e'), 'no control or bidi character');
  t.ok(name.startsWith('Mallory Set-Cookie: x=1 mmm'), name.slice(0, 40));
  t.equal([...name].length, DISPLAY_NAME_MAX_LENGTH, 'cut to the bound');
  t.ok(name.endsWith('…'), 'and says it was cut');
});

t.test('displayName reads own claims only, and strings only', async (t) => {
  t.equal(displayName(Object.create({ name: 'inherited' }) as Record<string, unknown>, 'iss#sub'), 'iss#sub');
  t.equal(displayName({ name: 42, email: ['x'], preferred_username: 'p' }, 'iss#sub'), 'p');
  t.equal(displayName({ name: 'Zoë 🚀 Ünïcode' }, 'iss#sub'), 'Zoë 🚀 Ünïcode');
  t.equal(
    displayName({ name: '😀'.repeat(150) }, 'iss#sub'),
    `${'😀'.repeat(DISPLAY_NAME_MAX_LENGTH - 1)}…`,
    'counts characters, never splits one',
  );
});
