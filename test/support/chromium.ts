// The real Chromium (Debian's package), headless, driven through its DevTools protocol over a
// WebSocket (Node's own client): load a page, type into a field and press Enter as a person
// would, read the DOM, take a screenshot. Its own profile directory; no network but loopback
// (no background services, every host name unresolvable).
import { writeFileSync } from 'node:fs';
import { freePort } from './ports.ts';
import { startProcess, waitFor, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';

const FLAGS = [
  '--headless',
  // As root Chromium refuses to start with its sandbox.
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--hide-scrollbars',
];

interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export interface ChromiumPage {
  /** Loads a URL and waits for its load event. */
  navigate(url: string): Promise<void>;
  /** Scripts of pages on or off (off: what a browser without JavaScript does). */
  javascript(enabled: boolean): Promise<void>;
  /** Types text into the element `selector` finds, as keystrokes would. */
  type(selector: string, text: string): Promise<void>;
  /** Presses Enter in the focused element; resolves when the page it leads to has loaded. */
  pressEnter(): Promise<void>;
  /** The document's markup now. */
  html(): Promise<string>;
  url(): Promise<string>;
  /** Evaluates an expression in the page (needs JavaScript on); its value. */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the whole page at `width` CSS pixels. */
  screenshot(file: string, width: number): Promise<{ width: number; height: number }>;
}

export interface ChromiumHandle {
  process: ManagedProcess;
  page: ChromiumPage;
  stop(): Promise<void>;
}

export async function startChromium(): Promise<ChromiumHandle> {
  const port = await freePort();
  const proc = startProcess('chromium', tool('chromium'), [
    ...FLAGS,
    `--user-data-dir=${tempDir('chromium')}`,
    '--remote-debugging-address=127.0.0.1',
    `--remote-debugging-port=${port}`,
    'about:blank',
  ]);
  const base = `http://127.0.0.1:${port}`;
  const targets = await waitFor(
    'chromium DevTools',
    async () => {
      if (!proc.running()) throw new Error(`chromium exited:\n${proc.logs().slice(-2000)}`);
      const list = (await (await fetch(`${base}/json/list`)).json()) as {
        type: string;
        webSocketDebuggerUrl: string;
      }[];
      return list.some((t) => t.type === 'page') ? list : undefined;
    },
    30_000,
    100,
  );
  const socket = new WebSocket(targets.find((t) => t.type === 'page')!.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('no DevTools connection')), { once: true });
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  const waiters: { method: string; resolve: () => void }[] = [];
  socket.addEventListener('message', (event) => {
    const msg = JSON.parse(String(event.data)) as CdpMessage;
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(msg.error.message));
      else p?.resolve(msg.result ?? {});
    } else if (msg.method) {
      for (const [i, w] of [...waiters.entries()].reverse())
        if (w.method === msg.method) {
          waiters.splice(i, 1);
          w.resolve();
        }
    }
  });
  const send = <T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (r: Record<string, unknown>) => void, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  const event = (method: string, timeoutMs = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${method} within ${timeoutMs} ms`)), timeoutMs);
      waiters.push({
        method,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  await send('Page.enable');
  await send('DOM.enable');

  const nodeOf = async (selector: string) => {
    const { root } = await send<{ root: { nodeId: number } }>('DOM.getDocument', { depth: 0 });
    const { nodeId } = await send<{ nodeId: number }>('DOM.querySelector', { nodeId: root.nodeId, selector });
    if (!nodeId) throw new Error(`no element ${selector}`);
    return nodeId;
  };
  const key = (type: string) =>
    send('Input.dispatchKeyEvent', {
      type,
      key: 'Enter',
      code: 'Enter',
      windowsVirtualKeyCode: 13,
      nativeVirtualKeyCode: 13,
      ...(type === 'keyDown' ? { text: '\r' } : {}),
    });
  const page: ChromiumPage = {
    navigate: async (url) => {
      const loaded = event('Page.loadEventFired');
      await send('Page.navigate', { url });
      await loaded;
    },
    javascript: async (enabled) => {
      await send('Emulation.setScriptExecutionDisabled', { value: !enabled });
    },
    type: async (selector, text) => {
      await send('DOM.focus', { nodeId: await nodeOf(selector) });
      await send('Input.insertText', { text });
    },
    pressEnter: async () => {
      const loaded = event('Page.loadEventFired');
      await key('keyDown');
      await key('keyUp');
      await loaded;
    },
    html: async () => {
      const { root } = await send<{ root: { nodeId: number } }>('DOM.getDocument', { depth: 0 });
      return (await send<{ outerHTML: string }>('DOM.getOuterHTML', { nodeId: root.nodeId })).outerHTML;
    },
    url: async () => {
      const { frameTree } = await send<{ frameTree: { frame: { url: string } } }>('Page.getFrameTree');
      return frameTree.frame.url;
    },
    evaluate: async <T>(expression: string) => {
      const r = await send<{ result: { value: T }; exceptionDetails?: unknown }>('Runtime.evaluate', {
        expression,
        returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(`evaluate ${expression}: ${JSON.stringify(r.exceptionDetails)}`);
      return r.result.value;
    },
    screenshot: async (file, width) => {
      const metrics = (height: number) =>
        send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
      // The width first: the content's height follows from it.
      await metrics(800);
      const { cssContentSize } = await send<{ cssContentSize: { height: number } }>('Page.getLayoutMetrics');
      const height = Math.ceil(cssContentSize.height);
      await metrics(height);
      const { data } = await send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
      writeFileSync(file, Buffer.from(data, 'base64'));
      return { width, height };
    },
  };
  return {
    process: proc,
    page,
    stop: async () => {
      socket.close();
      await proc.stop();
    },
  };
}
