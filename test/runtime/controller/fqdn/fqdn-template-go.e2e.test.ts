// Our Go-template engine against Go's own text/template: each template below runs on each object
// through both (Go's with external-dns's function map and unstructured wrapper:
// test/support/go-template/reference.go, run with the machine's go), and the names, or the
// failure, must be the same. One test per template.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FqdnTemplates, NO_TEMPLATES } from '../../../../src/runtime/controller/fqdn/fqdn-templates.ts';
import { unstructuredData, type TemplateObject } from '../../../../src/runtime/controller/fqdn/template-data.ts';

const REFERENCE = fileURLToPath(new URL('../../../support/go-template/reference.go', import.meta.url));

const OBJECTS: TemplateObject[] = [
  {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: {
      name: 'my-vm',
      namespace: 'vms',
      labels: { app: 'web', 'app.kubernetes.io/instance': 'Prod', empty: '' },
      annotations: {
        'external-dns.kubernetes.io/hostname': 'a.example.com, b.example.com',
        records: '[{"dns":"e1.example","port":8080},{"dns":"e2.example","big":1000000}]',
      },
    },
    spec: { hosts: ['x.example', 'skip', 'y.example'], replicas: 3, ratio: 0.25, enabled: true, nothing: null },
    status: {
      interfaces: [
        { name: 'eth0', ipAddress: '10.244.1.50' },
        { name: 'eth1', ipAddress: '2001:db8::5' },
      ],
      atProvider: { endpoint: { address: 'db.abc.rds' } },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'default' },
    data: { hostname: 'Api.Example.com.', target: '10.0.0.100', list: 'a.example,b.example' },
  },
  {
    apiVersion: 'metallb.io/v1beta1',
    kind: 'IPAddressPool',
    metadata: { name: 'pool' },
    spec: { addresses: ['192.168.10.11/32', '192.168.10.0/24'] },
  },
];

const TEMPLATES = [
  '{{.Name}}.{{.Namespace}}.example.com',
  '{{.Kind}}.{{.APIVersion}}.example.com',
  '{{.Metadata.name}}.example.com',
  '{{index .Labels "app.kubernetes.io/instance"}}.example.com',
  '{{index .Labels "missing"}}x.example.com',
  '{{.Labels.app}}.{{.Labels.missing}}',
  '{{ index .Annotations "external-dns.kubernetes.io/hostname" }}',
  '{{index .Status.interfaces 0 "ipAddress"}}',
  '{{index .Status.interfaces 5 "ipAddress"}}',
  '{{range $i := .Status.interfaces}}{{$.Name}}-{{index $i "name"}}.if.example:{{index $i "ipAddress"}},{{end}}',
  '{{range $i, $e := .Status.interfaces}}{{$i}}.{{$e.name}}.example,{{end}}',
  '{{range .Status.interfaces}}{{if isIPv6 .ipAddress}}{{.name}}.v6.example{{else}}{{.name}}.v4.example{{end}},{{end}}',
  '{{.Status.atProvider.endpoint.address}}',
  '{{.Status.missing.deeper.still}}',
  '{{.Spec.nothing.x}}',
  '{{.Spec.replicas.x}}',
  '{{if .Status.interfaces}}{{index .Status.interfaces 0 "ipAddress"}}{{else}}{{.Status.atProvider.endpoint.address}}{{end}}',
  '{{index .Object.data "hostname"}}',
  '{{index .Object.data "list"}}',
  '{{index .Object.data "missing"}}.example',
  '{{.Data}}',
  '{{$addr := index .Spec.addresses 0}}{{if contains $addr "/32"}}{{trimSuffix $addr "/32"}}{{else}}{{$addr}}{{end}}',
  '{{range .Spec.addresses}}{{. | replace "/" "-" | replace "." "-"}}.pool.example,{{end}}',
  '{{ $n := "" }}{{ range .Spec.hosts }}{{ if eq . "skip" }}{{ continue }}{{ end }}{{ $n = . }}{{ end }}{{ $n }}',
  '{{ range .Spec.hosts }}{{ if eq . "skip" }}{{ break }}{{ end }}{{ . }},{{ end }}',
  '{{ with .Spec.missing }}m{{ else with .Spec.hosts }}{{ index . 0 }}{{ else }}none{{ end }}',
  '{{ range .Spec.missing }}x{{ else }}empty.example{{ end }}',
  '{{ range $k, $v := .Labels }}{{ $k }}={{ $v }},{{ end }}',
  '{{ range $k, $v := .Object.metadata }}{{ $k }},{{ end }}',
  '{{ .Spec.replicas }}-{{ .Spec.ratio }}-{{ .Spec.enabled }}-{{ .Spec.nothing }}',
  '{{ .Spec.hosts }}',
  '{{ .Status.interfaces }}',
  '{{ print 1 2 "a" "b" 3 .Spec.replicas }}',
  '{{ printf "%v-%s-%d-%q-%t-%x" .Spec.replicas .Name .Spec.replicas .Name .Spec.enabled 255 }}',
  '{{ printf "%d-%s" .Name .Spec.replicas }}',
  '{{ printf "%s" }}',
  '{{ printf "a" .Spec.replicas }}',
  '{{ println .Name }}',
  '{{ len .Name }}-{{ len .Spec.hosts }}-{{ len .Labels }}',
  '{{ len .Spec.replicas }}',
  '{{ if and (eq .Kind "VirtualMachineInstance") (hasKey .Labels "empty") }}yes{{ else }}no{{ end }}',
  '{{ if hasKey .Labels "nope" }}yes{{ else }}no{{ end }}',
  '{{ or .Labels.missing "default" }}.example',
  '{{ and .Labels.app .Labels.missing }}.example',
  '{{ not .Labels.app }}',
  '{{ eq .Spec.replicas 3 }}-{{ eq .Name "my-vm" "pool" }}-{{ ne .Name "x" }}',
  '{{ eq .Spec.replicas "3" }}',
  '{{ eq .Labels.missing "x" }}',
  '{{ lt .Spec.replicas 5 }}-{{ ge .Name "a" }}-{{ gt 2 1 }}-{{ le 2 2 }}',
  '{{ lt .Spec.enabled true }}',
  '{{ toLower (index .Labels "app.kubernetes.io/instance") }}',
  '{{ toLower .Labels.missing }}',
  '{{ toLower .Spec.replicas }}',
  '{{ trim "  x.example  " }}',
  '{{ trimPrefix .Name "my-" }}-{{ trimSuffix .Name "-vm" }}',
  '{{ replace "" "-" "ab" }}',
  '{{ if isIPv4 "256.256.256.256" }}y{{ else }}n{{ end }}-{{ isIPv4 "10.0.0.1" }}-{{ isIPv6 "::ffff:192.168.1.1" }}-{{ isIPv6 "" }}',
  '{{ if isSource "unstructured" }}u{{ end }}{{ if isSource "SERVICE" }}s{{ end }}.example',
  '{{ range $e := (index .Annotations "records" | fromJson) }}{{ index $e "dns" }},{{ end }}',
  '{{ range $e := (index .Annotations "records" | fromJson) }}{{ index $e "port" }}-{{ index $e "big" }},{{ end }}',
  '{{ range (index .Labels "missing" | fromJson) }}x{{ end }}none',
  '{{ fromJson "not json" }}',
  '{{ index (fromJson "{\\"a\\":{\\"b\\":[1,2.5,\\"c\\"]}}") "a" }}',
  '{{ (index .Status.interfaces 1).name }}',
  '{{ index "abc" 1 }}',
  '{{ index .Spec.hosts "a" }}',
  '{{ index .Missing 0 }}',
  '{{ range 3 }}{{ . }},{{ end }}',
  '{{ range .Name }}x{{ end }}',
  '{{- .Name -}} . {{- "example" }}',
  '{{/* c */}}{{ .Name }}',
  '{{ "a\\tb\\x41\\u00e9" }}-{{ `raw\\n` }}-{{ 0x1F }}-{{ 1e3 }}-{{ 2.50 }}-{{ -7 }}',
  '{{ $x := 1 }}{{ if true }}{{ $x := 2 }}{{ $x }}{{ end }}{{ $x }}',
  '{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}',
  '{{ print nil }}',
  '{{ .Spec.hosts | len | printf "%d.hosts" }}',
];

interface GoResult {
  names?: string[];
  error?: string;
}

let reference: GoResult[][] = [];

before(async () => {
  const cases = OBJECTS.flatMap((object) =>
    TEMPLATES.map((template) => ({ template, object, source: 'unstructured' })),
  );
  const child = promisify(execFile)('go', ['run', REFERENCE], {
    maxBuffer: 64 << 20,
    env: { ...process.env, GOFLAGS: '-mod=mod' },
  });
  child.child.stdin!.end(JSON.stringify(cases));
  const { stdout } = await child;
  const flat = JSON.parse(stdout) as GoResult[];
  reference = TEMPLATES.map((_, t) => OBJECTS.map((__, o) => flat[o * TEMPLATES.length + t]!));
});

TEMPLATES.forEach((template, t) => {
  test(`same as Go: ${template}`, () => {
    const engine = FqdnTemplates.parse({ ...NO_TEMPLATES, fqdnTemplate: [template] });
    OBJECTS.forEach((object, o) => {
      const ours = engine.names(unstructuredData(object), 'unstructured');
      const go = reference[t]![o]!;
      const where = `${object.kind}: Go ${JSON.stringify(go)}, ours ${JSON.stringify(ours)}`;
      if (go.error) assert.equal(ours.ok, false, where);
      else assert.deepEqual(ours, { ok: true, value: go.names ?? [] }, where);
    });
  });
});
