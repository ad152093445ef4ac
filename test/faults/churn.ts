// A stream of Service changes through the real API server (creates, address changes, deletes),
// and the truth they make: for each name, every state it was in and since when. Answers are
// checked against this truth; an operation the API server refused (it is down) changed nothing.
import * as k8s from '@kubernetes/client-node';

export const ZONE = 'example.org';
const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** A name's state from `at` (Date.now()) on: its address, or undefined when it does not exist. */
export interface NameState {
  address: string | undefined;
  at: number;
}

export interface ChurnOptions {
  /** Changes per second. */
  rate: number;
  /** Names alive at once; past it the oldest is deleted. */
  maxLive?: number;
}

export class Churn {
  /** name -> states, oldest first; a name starts as not existing. */
  readonly history = new Map<string, NameState[]>();
  /** Called with every change the API server accepted. */
  onChange: (name: string, state: NameState) => void = () => undefined;
  /** The state a request in flight asks for (it may show in answers before the API server replies). */
  readonly intended = new Map<string, string | undefined>();
  applied = 0;
  refused = 0;
  private readonly core: k8s.CoreV1Api;
  private readonly live: string[] = [];
  private counter = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private readonly o: ChurnOptions;

  constructor(admin: k8s.KubeConfig, options: ChurnOptions) {
    this.core = admin.makeApiClient(k8s.CoreV1Api);
    this.o = options;
  }

  static nameOf(service: string): string {
    return `${service}.${ZONE}`;
  }

  /** The name's state now (undefined: does not exist). */
  current(name: string): string | undefined {
    const h = this.history.get(name);
    return h?.[h.length - 1]?.address;
  }

  /** Creates `count` Services that never change (prefix "s-"), sequentially; returns their names. */
  async createStable(count: number): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < count; i++) {
      const service = `s-${i}`;
      const address = `10.1.${i >> 8}.${i & 255}`;
      await this.create(service, address);
      out.set(Churn.nameOf(service), address);
    }
    return out;
  }

  /** Creates `count` Services ("b-" prefix) one after another, as fast as the API server takes them. */
  async burst(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      try {
        await this.create(`b-${i}`, `10.4.${i >> 8}.${i & 255}`);
        this.applied++;
      } catch {
        this.refused++;
      }
    }
  }

  start(): void {
    const interval = 1000 / this.o.rate;
    this.timer = setInterval(() => {
      // One at a time, so the truth records changes in the order the API server made them; a
      // hanging API server skips ticks instead of piling up requests.
      if (this.inFlight > 0) return;
      this.inFlight++;
      void this.step().finally(() => this.inFlight--);
    }, interval);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
  }

  private async step(): Promise<void> {
    const n = this.counter++;
    try {
      if (n % 3 === 2 && this.live.length > 0) {
        const service = this.live[n % this.live.length]!;
        await this.setAddress(service, `10.3.${(n >> 8) & 255}.${n & 255}`);
      } else if (this.live.length >= (this.o.maxLive ?? 40)) {
        const service = this.live.shift()!;
        this.intended.set(Churn.nameOf(service), undefined);
        await this.core.deleteNamespacedService({ name: service, namespace: 'default' });
        this.record(service, undefined);
      } else {
        await this.create(`c-${n}`, `10.2.${(n >> 8) & 255}.${n & 255}`);
        this.live.push(`c-${n}`);
      }
      this.applied++;
    } catch {
      this.refused++;
    }
  }

  private async create(service: string, address: string): Promise<void> {
    await this.core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: service, annotations: { [HOSTNAME]: Churn.nameOf(service) } },
        spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: service } },
      },
    });
    await this.setAddress(service, address);
  }

  private async setAddress(service: string, address: string): Promise<void> {
    this.intended.set(Churn.nameOf(service), address);
    await this.core.patchNamespacedServiceStatus(
      { name: service, namespace: 'default', body: { status: { loadBalancer: { ingress: [{ ip: address }] } } } },
      mergePatch,
    );
    this.record(service, address);
  }

  private record(service: string, address: string | undefined): void {
    const name = Churn.nameOf(service);
    const state = { address, at: Date.now() };
    this.intended.delete(name);
    const h = this.history.get(name) ?? [{ address: undefined, at: 0 }];
    h.push(state);
    this.history.set(name, h);
    this.onChange(name, state);
  }
}
