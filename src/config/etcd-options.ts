// The etcd options of every command that talks to etcd (server, controller, plan).
import type { OptionSpec } from './command-options.ts';

export const ETCD_OPTIONS: OptionSpec[] = [
  {
    flag: 'etcd-urls',
    aliases: ['etcd'],
    kind: 'list',
    field: 'etcd.endpoints',
    value: 'URL[,URL]',
    help: 'etcd client URLs',
    deprecatedEnv: ['ETCDNS_ETCD', 'ETCD_URLS'],
  },
  {
    flag: 'etcd-ca-file',
    kind: 'string',
    field: 'etcd.tls.caFile',
    value: 'FILE',
    help: "CA bundle of etcd's server certificate",
    deprecatedEnv: ['ETCD_CA_FILE'],
  },
  {
    flag: 'etcd-cert-file',
    kind: 'string',
    field: 'etcd.tls.certFile',
    value: 'FILE',
    help: 'client certificate',
    deprecatedEnv: ['ETCD_CERT_FILE'],
  },
  {
    flag: 'etcd-key-file',
    kind: 'string',
    field: 'etcd.tls.keyFile',
    value: 'FILE',
    help: 'client key',
    deprecatedEnv: ['ETCD_KEY_FILE'],
  },
  {
    flag: 'etcd-username',
    kind: 'string',
    field: 'etcd.auth.username',
    value: 'NAME',
    help: 'etcd user',
    deprecatedEnv: ['ETCD_USERNAME'],
  },
  {
    flag: 'etcd-password-file',
    kind: 'string',
    field: 'etcd.auth.passwordFile',
    value: 'FILE',
    help: 'file holding the etcd password',
    deprecatedEnv: ['ETCD_PASSWORD_FILE'],
  },
  {
    flag: 'etcd-password',
    kind: 'string',
    field: 'etcd.auth.password',
    value: 'PASSWORD',
    help: 'the etcd password itself',
    envOnly: true,
    deprecatedEnv: ['ETCD_PASSWORD'],
  },
];
