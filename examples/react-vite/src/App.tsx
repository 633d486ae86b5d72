import { useState, type FormEvent } from 'react';
import { BffError, TigerGraphError, type Methods } from '@tigergraph-bff/browser';
import { bff } from './bff.js';
import { friends, GRAPH, hello } from './queries.js';
import { useSession } from './session.js';

/** A refusal as one line: the service's own (`BffError`, typed `code`) or TigerGraph's (`TigerGraphError`). */
function describe(err: unknown): string {
  if (err instanceof BffError) return `${err.message} (${err.code})`;
  if (err instanceof TigerGraphError) return `TigerGraph: ${err.message}${err.code ? ` (${err.code})` : ''}`;
  return String(err);
}

export function App() {
  const { session, methods, notice, refresh } = useSession();
  if (session === undefined) return <main aria-busy="true">Loading…</main>;
  return (
    <main>
      <h1>tigergraph-bff · React example</h1>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {session ? (
        <>
          <header className="bar">
            <span>
              Logged in with <strong>{session.login}</strong>
              {session.username && ` as ${session.username}`}
              {session.name && ` as ${session.name}`} on graph <strong>{session.graph ?? GRAPH}</strong>; the session
              ends at{' '}
              <time dateTime={session.sessionExpiresAt}>
                {session.sessionExpiresAt ? new Date(session.sessionExpiresAt).toLocaleTimeString() : 'logout'}
              </time>
              .
            </span>
            <button type="button" onClick={() => void bff.logout()}>
              Log out
            </button>
          </header>
          <HelloForm />
          <FriendsForm />
        </>
      ) : (
        methods && <LoginForms methods={methods} onIn={refresh} />
      )}
    </main>
  );
}

/** One form per login the service offers (`GET /auth/methods`). */
function LoginForms({ methods, onIn }: { methods: Methods; onIn: () => Promise<void> }) {
  const [error, setError] = useState<string>();
  const submit =
    (read: (data: FormData) => Parameters<typeof bff.login>[0]) => async (e: FormEvent<HTMLFormElement>) => {
      e.preventDefault();
      setError(undefined);
      try {
        await bff.login(read(new FormData(e.currentTarget)));
        await onIn();
      } catch (err) {
        setError(describe(err));
      }
    };
  const field = (data: FormData, name: string) => String(data.get(name) ?? '');
  return (
    <section aria-labelledby="login-title">
      <h2 id="login-title">Log in</h2>
      {methods.secret && (
        <form
          aria-label="Log in with a secret"
          onSubmit={submit((d) => ({ secret: field(d, 'secret'), graph: field(d, 'graph') }))}
        >
          <label>
            Secret <input name="secret" type="password" autoComplete="off" required />
          </label>
          <label>
            Graph <input name="graph" defaultValue={GRAPH} required />
          </label>
          <button type="submit">Log in with the secret</button>
        </form>
      )}
      {methods.password && (
        <form
          aria-label="Log in as a TigerGraph user"
          onSubmit={submit((d) => ({
            username: field(d, 'username'),
            password: field(d, 'password'),
            graph: field(d, 'graph'),
          }))}
        >
          <label>
            User <input name="username" autoComplete="username" required />
          </label>
          <label>
            Password <input name="password" type="password" autoComplete="current-password" required />
          </label>
          <label>
            Graph <input name="graph" defaultValue={GRAPH} required />
          </label>
          <button type="submit">Log in as the user</button>
        </form>
      )}
      {methods.oidc && methods.oidcLoginUrl && (
        <p>
          <a href={methods.oidcCredentialMap ? `${methods.oidcLoginUrl}?graph=${GRAPH}` : methods.oidcLoginUrl}>
            Sign in with your company account
          </a>
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}

/** `hello(name)`: name has a default, so it may be left empty; the row type comes from tgbff-codegen.json. */
function HelloForm() {
  const [answer, setAnswer] = useState<string>();
  const run = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('name') ?? '');
    try {
      const [row] = await hello(bff, { name: name || undefined });
      setAnswer(row?.greeting);
    } catch (err) {
      setAnswer(describe(err));
    }
  };
  return (
    <section aria-labelledby="hello-title">
      <h2 id="hello-title">hello</h2>
      <form onSubmit={run}>
        <label>
          Name (optional) <input name="name" />
        </label>
        <button type="submit">Run hello</button>
      </form>
      {answer !== undefined && <output aria-label="hello answer">{answer}</output>}
    </section>
  );
}

/** `friends(person)`: person is required (the listing says so), so the generated type will not let it be left out. */
function FriendsForm() {
  const [answer, setAnswer] = useState<string>();
  const run = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const person = String(new FormData(e.currentTarget).get('person') ?? '');
    try {
      const rows = await friends(bff, { person });
      const first = rows[0];
      setAnswer(first && 'friends' in first ? `${first.person}: ${first.friends.join(', ') || 'no friends'}` : '—');
    } catch (err) {
      setAnswer(describe(err));
    }
  };
  return (
    <section aria-labelledby="friends-title">
      <h2 id="friends-title">friends</h2>
      <form onSubmit={run}>
        <label>
          Person <input name="person" defaultValue="alice" required />
        </label>
        <button type="submit">Run friends</button>
      </form>
      {answer !== undefined && <output aria-label="friends answer">{answer}</output>}
    </section>
  );
}
