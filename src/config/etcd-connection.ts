// How the server and the controller reach etcd. Secrets are files (mounted from Kubernetes
// Secrets); a password value comes only from the environment (ETCDNS_ETCD_PASSWORD).
import * as v from 'valibot';
import { etcdUrl, list, path, text } from './field-rules.ts';

export const etcdConnectionSchema = v.pipe(
  v.object({
    /** Client URLs, e.g. ["https://etcd-0.etcd:2379"]. */
    endpoints: list(etcdUrl, 'etcd client URLs'),
    tls: v.optional(
      v.pipe(
        v.object({
          /** CA bundle that signed etcd's server certificate. */
          caFile: path,
          /** Client certificate and key, when etcd requires client authentication. */
          certFile: v.optional(path),
          keyFile: v.optional(path),
        }),
        v.check((t) => !t.certFile === !t.keyFile, 'needs both certFile and keyFile, or neither'),
      ),
    ),
    auth: v.optional(
      v.object({
        username: text('an etcd user name', (s) => s.length > 0),
        /** File holding the password (a mounted Secret key). */
        passwordFile: v.optional(path),
        /** The password itself: set from the environment only, never written to a file. */
        password: v.optional(v.string()),
      }),
    ),
  }),
  v.forward(
    v.check(
      (c) => !c.auth || c.auth.passwordFile !== undefined || c.auth.password !== undefined,
      'needs a password: passwordFile (--etcd-password-file) or ETCDNS_ETCD_PASSWORD',
    ),
    ['auth'],
  ),
);

export type EtcdConnection = v.InferOutput<typeof etcdConnectionSchema>;
