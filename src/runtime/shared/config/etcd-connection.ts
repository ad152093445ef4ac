// How a runtime component reaches etcd. Secrets are files (mounted from Kubernetes Secrets),
// never values in config.

export interface EtcdConnection {
  /** Client URLs, e.g. ["https://etcd-0.etcd:2379"]. */
  endpoints: string[];
  tls?: {
    /** CA bundle that signed etcd's server certificate. */
    caFile: string;
    /** Client certificate and key, when etcd requires client authentication. */
    certFile?: string;
    keyFile?: string;
  };
  auth?: {
    username: string;
    /** File holding the password (a mounted Secret key). */
    passwordFile: string;
  };
}
