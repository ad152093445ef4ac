// What the tests read of a synthesized stack's DNS server of a view: its config file (the
// ConfigMap's config.json) and its pod spec.

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const find = (objects: Json[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name)!;
export const serverConfig = (objects: Json[], view: string): Json =>
  JSON.parse(find(objects, 'ConfigMap', `etcdns-server-${view}`).data['config.json']);
export const podSpec = (objects: Json[], view: string): Json =>
  find(objects, 'Deployment', `etcdns-server-${view}`).spec.template.spec;
