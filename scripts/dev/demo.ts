/** The walkthrough's game servers: the namespace and fleet npm start puts in kube-lite, and the commands the banner prints. */

/** Where the walkthrough's game servers and fleet live. */
const DEMO_NAMESPACE = 'games';
/** How long the walkthrough's wait line waits for its game server to be Ready (kube-lite: under a second). */
const READY_WAIT_SECONDS = 30;

/** The namespace and fleet the walkthrough uses, in kube-lite only (never in a configured cluster). */
export async function seedDemo(kubeUrl: string): Promise<void> {
  const create = async (path: string, body: object): Promise<void> => {
    const res = await fetch(`${kubeUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // 409: already there from an earlier run (the data dir keeps them).
    if (!res.ok && res.status !== 409) throw new Error(`kube-lite refused ${path}: ${res.status} ${await res.text()}`);
  };
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: DEMO_NAMESPACE } });
  await create(`/apis/agones.dev/v1/namespaces/${DEMO_NAMESPACE}/fleets`, {
    apiVersion: 'agones.dev/v1',
    kind: 'Fleet',
    metadata: { name: 'arena', labels: { 'gsp.dev/profile': 'arena' } },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { 'gsp.dev/profile': 'arena' } },
        spec: {
          ports: [{ name: 'game', containerPort: 7777 }],
          template: { spec: { containers: [{ name: 'gameserver', image: 'example/arena:1.0' }] } },
        },
      },
    },
  });
}

/** Ready-to-paste commands for the control plane: a profile, a game server, actions, a fleet. */
export function gameServerWalkthrough(url: string, password: string, kubeconfig: string | undefined): string[] {
  const curl = `curl -s -u admin:${password}`;
  const json = `-H 'Content-Type: application/json'`;
  const profile = JSON.stringify({
    image: 'example/arena:1.0',
    ports: [{ name: 'game', containerPort: 7777, protocol: 'UDP' }],
    players: { initialCapacity: 16 },
    restartCommand: ['restart'],
    actions: { say: { command: ['say'], timeoutSeconds: 5, description: 'broadcast a message to the players' } },
  });
  const server = `${url}/api/v1/gameservers/${DEMO_NAMESPACE}/arena-1`;
  // A new game server is Creating for a moment, and its actions answer 409 until it is Ready: the
  // block waits for that itself (bounded), so it works pasted as a whole. POSIX sh plus SECONDS (bash, zsh).
  const ready = `until ${curl} ${server} | grep -q '"state":"Ready"'; do`;
  const timedOut = `echo "arena-1 is not Ready after ${READY_WAIT_SECONDS} s"; break`;
  return [
    `Game servers (control plane, as the Basic admin; paste the block as a whole, or line by line):`,
    `  ${curl} -X PUT ${url}/api/v1/profiles/arena ${json} -d '${profile}'`,
    `  ${curl} -X POST ${url}/api/v1/gameservers/${DEMO_NAMESPACE} ${json} -d '{"profile": "arena", "name": "arena-1"}'`,
    `  deadline=$((SECONDS + ${READY_WAIT_SECONDS})); ${ready} [ $SECONDS -lt $deadline ] || { ${timedOut}; }; sleep 0.2; done`,
    `  ${curl} ${server}                                   # "state":"Ready"`,
    `  ${curl} -X POST ${server}/actions/say ${json} -d '{"args": ["hello", "players"]}'`,
    `  ${curl} -X POST ${server}/actions/allocate`,
    `  ${curl} -X POST ${url}/api/v1/fleets/${DEMO_NAMESPACE}/arena/scale ${json} -d '{"replicas": 3}'`,
    `  ${curl} '${url}/api/v1/gameservers?namespace=${DEMO_NAMESPACE}'`,
    `  ${curl} -X DELETE '${server}?force=true'          # Allocated: players are on it, so force`,
    ...(kubeconfig ? [`  npx gsp-kubectl --kubeconfig ${kubeconfig} get gameservers,fleets -n ${DEMO_NAMESPACE}`] : []),
  ];
}

/** How to try the game-server panel with what the walkthrough above makes. */
export function panelWalkthrough(panelUrl: string, password: string): string[] {
  return [
    `The game-server panel: open ${panelUrl} and sign in as admin (password ${password}), then run the lines above:`,
    `  arena-1 appears and changes state in the open list without a reload; open it, Open console, type "say hi"`,
    `  and press Enter; its actions, Logs > Follow, Fleets, Profiles and API keys (a new key is shown once) are`,
    `  one click away. An API key of role viewer signs in read-only, each control saying why it is disabled.`,
  ];
}
