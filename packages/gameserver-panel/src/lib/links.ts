/** The hash link to a game server's page (the app's route `#/servers/<ns>/<name>`). */
export function serverHref(namespace: string, name: string): string {
  return `#/servers/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}
