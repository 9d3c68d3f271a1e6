/**
 * The walkthrough's game servers: the namespace, fleet and profile npm start puts in kube-lite,
 * and the commands the banner prints.
 */

/** Where the walkthrough's game servers and fleet live. */
const DEMO_NAMESPACE = 'games';
/** How long the walkthrough's wait line waits for its game server to be Ready (kube-lite: under a second). */
const READY_WAIT_SECONDS = 30;
/** The profile the fleet's servers are labelled with, and the walkthrough's first line puts again. */
const DEMO_PROFILE = 'arena';
const ARENA_PROFILE = {
  image: 'example/arena:1.0',
  ports: [{ name: 'game', containerPort: 7777, protocol: 'UDP' }],
  players: { initialCapacity: 16 },
  restartCommand: ['restart'],
  actions: { say: { command: ['say'], timeoutSeconds: 5, description: 'broadcast a message to the players' } },
};
/**
 * curl as the banner's lines run it: quiet, and a newline after the body, so that the JSON it
 * prints does not run into the next prompt.
 */
export const CURL = `curl -s -w '\\n'`;

/**
 * The namespace and fleet the walkthrough uses, and the profile `arena` the fleet's servers name
 * (so the panel's Create offers it before any line is pasted), in kube-lite only (never in a
 * configured cluster). The profile is a ConfigMap of the control plane's namespace, as the control
 * plane stores profiles (services/control-plane/src/profiles/store.ts), written before it starts.
 */
export async function seedDemo(kubeUrl: string, profileNamespace: string): Promise<void> {
  const create = async (path: string, body: object): Promise<void> => {
    const res = await fetch(`${kubeUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // 409: already there from an earlier run (the data dir keeps them; a profile edited since stays as it is).
    if (!res.ok && res.status !== 409) throw new Error(`kube-lite refused ${path}: ${res.status} ${await res.text()}`);
  };
  const labels = { 'gsp.dev/profile': DEMO_PROFILE };
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: DEMO_NAMESPACE } });
  await create(`/api/v1/namespaces/${profileNamespace}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `gsp-profile-${DEMO_PROFILE}`,
      labels: { ...labels, 'app.kubernetes.io/managed-by': 'gsp-control-plane' },
    },
    // JSON is YAML: the document as the control plane reads profile.yaml.
    data: { 'profile.yaml': JSON.stringify(ARENA_PROFILE, null, 2) },
  });
  await create(`/apis/agones.dev/v1/namespaces/${DEMO_NAMESPACE}/fleets`, {
    apiVersion: 'agones.dev/v1',
    kind: 'Fleet',
    metadata: { name: DEMO_PROFILE, labels },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels },
        spec: {
          ports: [{ name: 'game', containerPort: 7777 }],
          template: { spec: { containers: [{ name: 'gameserver', image: ARENA_PROFILE.image }] } },
        },
      },
    },
  });
}

/** Ready-to-paste commands for the control plane: a profile, a game server, actions, a fleet. */
export function gameServerWalkthrough(url: string, password: string, kubeconfig: string | undefined): string[] {
  const curl = `${CURL} -u admin:${password}`;
  const json = `-H 'Content-Type: application/json'`;
  const server = `${url}/api/v1/gameservers/${DEMO_NAMESPACE}/arena-1`;
  const create = `{"profile": "${DEMO_PROFILE}", "name": "arena-1"}`;
  // A new game server is Creating for a moment, and its actions answer 409 until it is Ready: the
  // block waits for that itself (bounded), so it works pasted as a whole. POSIX sh plus SECONDS (bash, zsh).
  const ready = `until ${curl} ${server} | grep -q '"state":"Ready"'; do`;
  const timedOut = `echo "arena-1 is not Ready after ${READY_WAIT_SECONDS} s"; break`;
  // No delete here: the panel's tour below opens arena-1, and so does the control plane's console example.
  return [
    `Game servers (control plane, as the Basic admin; paste the block as a whole, or line by line):`,
    `  ${curl} -X PUT ${url}/api/v1/profiles/${DEMO_PROFILE} ${json} -d '${JSON.stringify(ARENA_PROFILE)}'`,
    `  ${curl} -X POST ${url}/api/v1/gameservers/${DEMO_NAMESPACE} ${json} -d '${create}'`,
    `  deadline=$((SECONDS + ${READY_WAIT_SECONDS})); ` +
      `${ready} [ $SECONDS -lt $deadline ] || { ${timedOut}; }; sleep 0.2; done`,
    `  ${curl} ${server}                                   # "state":"Ready"`,
    `  ${curl} -X POST ${server}/actions/say ${json} -d '{"args": ["hello", "players"]}'`,
    `  ${curl} -X POST ${server}/actions/allocate`,
    `  ${curl} -X POST ${url}/api/v1/fleets/${DEMO_NAMESPACE}/${DEMO_PROFILE}/scale ${json} -d '{"replicas": 3}'`,
    `  ${curl} '${url}/api/v1/gameservers?namespace=${DEMO_NAMESPACE}'`,
    ...(kubeconfig ? [`  npx gsp-kubectl --kubeconfig ${kubeconfig} get gameservers,fleets -n ${DEMO_NAMESPACE}`] : []),
  ];
}

/** How to try the game-server panel with what the walkthrough above makes, and how to delete arena-1 after. */
export function panelWalkthrough(panelUrl: string, url: string, password: string): string[] {
  const server = `${url}/api/v1/gameservers/${DEMO_NAMESPACE}/arena-1`;
  return [
    `The game-server panel: open ${panelUrl} and sign in as admin (password ${password}), then run the lines above:`,
    `  arena-1 appears and changes state in the open list without a reload; open it, Open console, type "say hi"`,
    `  and press Enter; its actions, Logs > Follow, Fleets, Profiles and API keys (a new key is shown once) are`,
    `  one click away. An API key of role viewer signs in read-only, each control saying why it is disabled.`,
    `  Done with arena-1? It is Allocated (players are on it), so deleting it needs force:`,
    `  ${CURL} -u admin:${password} -X DELETE '${server}?force=true'`,
  ];
}
