// Table tests of the template flags (src/runtime/controller/fqdn/): external-dns v0.22's own
// template tests (source/template/engine_test.go, functions_test.go, source/unstructured_fqdn_test.go
// and the examples of docs/advanced/fqdn-templating.md and docs/sources/unstructured.md), one test
// per row, and the constructs refused at start-up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FqdnTemplates,
  TemplateConfigError,
  type TemplateFlags,
} from '../../../../src/runtime/controller/fqdn/fqdn-templates.ts';
import {
  typedData,
  unstructuredData,
  type TemplateObject,
} from '../../../../src/runtime/controller/fqdn/template-data.ts';

const flags = (f: Partial<TemplateFlags>): TemplateFlags => ({
  fqdnTemplate: [],
  targetTemplate: [],
  fqdnTargetTemplate: [],
  combineFqdnAnnotation: false,
  ...f,
});
const meta = (m: TemplateObject['metadata']): TemplateObject => ({ metadata: m });

interface Row {
  name: string;
  tmpl: string;
  obj: TemplateObject;
  /** The source whose object it is (isSource); a typed object unless 'unstructured'. */
  source?: string;
  kind?: string;
  want: string[] | { error: RegExp };
}

const RECORDS =
  '\n[{"dns":"entry1.internal.tld","target":"10.10.10.10"},{"dns":"entry2.example.tld","target":"my.cluster.local"}]';

const vmi = (status: Record<string, unknown>, name = 'my-vm', namespace = 'default'): TemplateObject => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name, namespace },
  status,
});

const ROWS: Row[] = [
  // engine_test.go TestExecFQDN
  {
    name: 'simple template',
    tmpl: '{{ .Name }}.example.com, {{ .Namespace }}.example.org',
    obj: meta({ name: 'test', namespace: 'default' }),
    want: ['default.example.org', 'test.example.com'],
  },
  {
    name: 'multiple hostnames',
    tmpl: '{{.Name}}.example.com, {{.Name}}.example.org',
    obj: meta({ name: 'test', namespace: 'default' }),
    want: ['test.example.com', 'test.example.org'],
  },
  {
    name: 'trim spaces',
    tmpl: '  {{ trim .Name}}.example.com. ',
    obj: meta({ name: ' test ' }),
    want: ['test.example.com'],
  },
  {
    name: 'trim prefix',
    tmpl: '{{ trimPrefix .Name "the-" }}.example.com',
    obj: meta({ name: 'the-test' }),
    want: ['test.example.com'],
  },
  {
    name: 'trim suffix',
    tmpl: '{{ trimSuffix .Name "-v2" }}.example.com',
    obj: meta({ name: 'test-v2' }),
    want: ['test.example.com'],
  },
  {
    name: 'replace dash',
    tmpl: '{{ replace "-" "." .Name }}.example.com',
    obj: meta({ name: 'test-v2' }),
    want: ['test.v2.example.com'],
  },
  {
    name: 'annotations and labels',
    tmpl: '{{.Labels.environment }}.example.com, {{ index .ObjectMeta.Annotations "alb.ingress.kubernetes.io/scheme" }}.{{ .Labels.environment }}.{{ index .ObjectMeta.Annotations "dns.company.com/zone" }}',
    obj: meta({
      name: 'test',
      annotations: {
        'external-dns.kubernetes.io/hostname': 'test.example.com, test.example.org',
        'alb.ingress.kubernetes.io/scheme': 'internal',
        'dns.company.com/zone': 'company.org',
      },
      labels: { environment: 'production', app: 'myapp' },
    }),
    want: ['internal.production.company.org', 'production.example.com'],
  },
  {
    name: 'labels to lowercase',
    tmpl: '{{ toLower .Labels.department }}.example.org',
    obj: meta({ name: 'test', labels: { department: 'FINANCE' } }),
    want: ['finance.example.org'],
  },
  {
    name: 'generate multiple hostnames with if condition',
    tmpl: '{{ if contains (index .ObjectMeta.Annotations "external-dns.kubernetes.io/hostname") "example.com" }}{{ toLower .Labels.hostoverride }}{{end}}',
    obj: meta({
      name: 'test',
      labels: { hostoverride: 'abrakadabra.google.com' },
      annotations: { 'external-dns.kubernetes.io/hostname': 'test.example.com' },
    }),
    want: ['abrakadabra.google.com'],
  },
  {
    name: 'ignore empty template output',
    tmpl: '{{ if eq .Name "other" }}{{ .Name }}.example.com{{ end }}',
    obj: meta({ name: 'test' }),
    want: [],
  },
  {
    name: 'ignore trailing comma output',
    tmpl: '{{ .Name }}.example.com,',
    obj: meta({ name: 'test' }),
    want: ['test.example.com'],
  },
  {
    name: 'contains label with empty value',
    tmpl: '{{if hasKey .Labels "service.kubernetes.io/headless"}}{{ .Name }}.example.com,{{end}}',
    obj: meta({ name: 'test', labels: { 'service.kubernetes.io/headless': '' } }),
    want: ['test.example.com'],
  },
  {
    name: 'result only contains unique values',
    tmpl: '{{ .Name }}.example.com,{{ .Name }}.example.com,{{ .Name }}.example.com',
    obj: meta({ name: 'test' }),
    want: ['test.example.com'],
  },
  {
    name: 'dns entries in labels',
    tmpl: '\n{{ if hasKey .Labels "records" }}{{ range $entry := (index .Labels "records" | fromJson) }}{{ index $entry "dns" }},{{ end }}{{ end }}',
    obj: meta({ name: 'test', labels: { records: RECORDS } }),
    want: ['entry1.internal.tld', 'entry2.example.tld'],
  },
  {
    name: 'configmap with multiple entries',
    tmpl: '{{ range $entry := (index .Data "entries" | fromJson) }}{{ index $entry "dns" }},{{ end }}',
    obj: { metadata: { name: 'test-configmap' }, data: { entries: RECORDS } },
    kind: 'ConfigMap',
    want: ['entry1.internal.tld', 'entry2.example.tld'],
  },
  {
    name: 'rancher publicEndpoints annotation',
    tmpl: '\n{{ range $entry := (index .Annotations "field.cattle.io/publicEndpoints" | fromJson) }}{{ index $entry "hostname" }},{{ end }}',
    obj: meta({
      name: 'test',
      annotations: {
        'field.cattle.io/publicEndpoints':
          '[{"addresses":[""],"port":80,"protocol":"HTTP","serviceName":"development:keycloak-ha-service","hostname":"keycloak.snip.com","allNodes":false}]',
      },
    }),
    want: ['keycloak.snip.com'],
  },
  // engine_test.go TestExecFQDNPreservesExistingKind, TestEngine_WithSource
  {
    name: 'Kind of a typed object',
    tmpl: '{{ .Kind }}.{{ .Name }}.example.com',
    obj: meta({ name: 'test' }),
    kind: 'CustomKind',
    want: ['CustomKind.test.example.com'],
  },
  {
    name: 'isSource matches the bound name case-insensitively',
    tmpl: '{{ if isSource "Service" }}yes{{ else }}no{{ end }}.example.com',
    obj: meta({ name: 'svc' }),
    source: 'service',
    want: ['yes.example.com'],
  },
  {
    name: 'isSource is false for a non-matching name',
    tmpl: '{{ if isSource "pod" }}yes{{ else }}no{{ end }}.example.com',
    obj: meta({ name: 'svc' }),
    source: 'service',
    want: ['no.example.com'],
  },
  {
    name: 'execution error: index of a struct',
    tmpl: '{{index . 0}}',
    obj: meta({ name: 'svc' }),
    want: { error: /index/ },
  },
  // engine_test.go TestNewEngine's functions, run
  {
    name: 'replace in a pipeline',
    tmpl: '{{"hello.world" | replace "." "-"}}.ext-dns.test.com',
    obj: meta({}),
    want: ['hello-world.ext-dns.test.com'],
  },
  {
    name: 'isIPv4 valid',
    tmpl: '{{if isIPv4 "192.168.1.1"}}valid{{else}}invalid{{end}}.ext-dns.test.com',
    obj: meta({}),
    want: ['valid.ext-dns.test.com'],
  },
  {
    name: 'isIPv4 invalid',
    tmpl: '{{if isIPv4 "not.an.ip.addr"}}valid{{else}}invalid{{end}}.ext-dns.test.com',
    obj: meta({}),
    want: ['invalid.ext-dns.test.com'],
  },
  {
    name: 'isIPv6 valid',
    tmpl: '{{if isIPv6 "2001:db8::1"}}valid{{else}}invalid{{end}}.ext-dns.test.com',
    obj: meta({}),
    want: ['valid.ext-dns.test.com'],
  },
  {
    name: 'isIPv6 invalid',
    tmpl: '{{if isIPv6 "not:ipv6:addr"}}valid{{else}}invalid{{end}}.ext-dns.test.com',
    obj: meta({}),
    want: ['invalid.ext-dns.test.com'],
  },
  // docs/advanced/fqdn-templating.md
  {
    name: 'docs: services only',
    tmpl: '{{ if eq .Kind "Service" }}{{ .Name }}.svc.example.com{{ end }}{{ if eq .Kind "Pod" }}{{ .Name }}.pod.example.com{{ end }}',
    obj: meta({ name: 'web' }),
    kind: 'Pod',
    want: ['web.pod.example.com'],
  },
  {
    name: 'docs: ExternalName services by spec field',
    tmpl: '{{ if eq .Kind "Service" }}{{ if eq .Spec.Type "ExternalName" }}{{ .Name }}.external.example.com{{ end }}{{ end }}',
    obj: { metadata: { name: 'ext' }, spec: { type: 'ExternalName' } },
    kind: 'Service',
    want: ['ext.external.example.com'],
  },
  {
    name: 'docs: selector with app key',
    tmpl: '{{ if eq .Kind "Service" }}{{ if index .Spec.Selector "app" }}{{ .Name }}.{{ index .Spec.Selector "app" }}.example.com{{ end }}{{ end }}',
    obj: { metadata: { name: 'web-frontend' }, spec: { selector: { app: 'nginx', tier: 'frontend' } } },
    kind: 'Service',
    want: ['web-frontend.nginx.example.com'],
  },
  {
    name: 'docs: selector without app key',
    tmpl: '{{ if eq .Kind "Service" }}{{ if index .Spec.Selector "app" }}{{ .Name }}.{{ index .Spec.Selector "app" }}.example.com{{ end }}{{ end }}',
    obj: { metadata: { name: 'database' }, spec: { selector: { tier: 'backend' } } },
    kind: 'Service',
    want: [],
  },
  {
    name: 'docs: range over labels with $',
    tmpl: '{{ if eq .Kind "Service" }}{{ range $key, $value := .Labels }}{{ if contains $key "app" }}{{ $.Name }}.{{ $value }}.example.com{{ printf "," }}{{ end }}{{ end }}{{ end }}',
    obj: meta({ name: 'api', labels: { app: 'web', 'app.kubernetes.io/part-of': 'shop', tier: 'x' } }),
    kind: 'Service',
    want: ['api.shop.example.com', 'api.web.example.com'],
  },
  {
    name: 'docs: annotations by key and value',
    tmpl: '{{ if eq .Kind "Service" }}{{ range $k, $v := .Annotations }}{{ if and (contains $k "dns/") (contains $v "example.com") }}{{ $v }}{{ printf "," }}{{ end }}{{ end }}{{ end }}',
    obj: meta({
      name: 'my-service',
      annotations: {
        'dns/primary': 'api.example.com',
        'dns/secondary': 'api-backup.example.com',
        'other/hostname': 'internal.other.org',
        'logging/level': 'debug',
      },
    }),
    kind: 'Service',
    want: ['api-backup.example.com', 'api.example.com'],
  },
  {
    name: 'docs: multi-variant',
    tmpl: '{{ .Name }}.{{ .Labels.env }}.{{ .Labels.region }}.example.com, {{ if eq .Labels.env "prod" }}{{ .Name }}.my-company.tld{{ end }}',
    obj: meta({ name: 'api', labels: { env: 'prod', region: 'us-east-1' } }),
    want: ['api.my-company.tld', 'api.prod.us-east-1.example.com'],
  },
  {
    name: "docs: a node's first public IPv4 (break)",
    tmpl: '{{range .Status.Addresses}}{{if and (eq .Type "ExternalIP") (isIPv4 .Address)}}{{.Address | replace "." "-"}}{{break}}{{end}}{{end}}.example.com',
    obj: {
      metadata: { name: 'n1' },
      status: {
        addresses: [
          { type: 'InternalIP', address: '10.0.0.1' },
          { type: 'ExternalIP', address: '2001:db8::1' },
          { type: 'ExternalIP', address: '203.0.113.7' },
          { type: 'ExternalIP', address: '203.0.113.8' },
        ],
      },
    },
    kind: 'Node',
    want: ['203-0-113-7.example.com'],
  },
  {
    name: 'docs: or gives a default',
    tmpl: '{{ or .Annotations.dns "invalid" }}.example.com',
    obj: meta({ name: 'x' }),
    want: ['invalid.example.com'],
  },
  {
    name: 'docs: hasKey with and',
    tmpl: '{{ if and (eq .Kind "Service") (hasKey .Labels "tier") }}{{ .Name }}.{{ index .Labels "tier" }}.example.com{{ end }}',
    obj: meta({ name: 'db', labels: { tier: 'backend' } }),
    kind: 'Service',
    want: ['db.backend.example.com'],
  },
  // unstructured_fqdn_test.go TestUnstructuredWrapper_Templating and the examples
  {
    name: 'unstructured: Name and Namespace',
    tmpl: '{{.Name}}.{{.Namespace}}.example.com',
    obj: vmi({}),
    source: 'unstructured',
    want: ['my-vm.default.example.com'],
  },
  {
    name: 'unstructured: raw Metadata',
    tmpl: '{{.Metadata.name}}.{{.Metadata.namespace}}.example.com',
    obj: vmi({}),
    source: 'unstructured',
    want: ['my-vm.default.example.com'],
  },
  {
    name: 'unstructured: nested Status',
    tmpl: '{{.Status.atProvider.endpoint.address}}',
    obj: {
      kind: 'RDSInstance',
      metadata: { name: 'prod-db' },
      status: { atProvider: { endpoint: { address: 'prod-db.abc123.rds.amazonaws.com' } } },
    },
    source: 'unstructured',
    want: ['prod-db.abc123.rds.amazonaws.com'],
  },
  {
    name: 'unstructured: index into an array of maps',
    tmpl: '{{index .Status.interfaces 0 "ipAddress"}}',
    obj: vmi({ interfaces: [{ ipAddress: '10.244.1.50', name: 'default' }] }),
    source: 'unstructured',
    want: ['10.244.1.50'],
  },
  {
    name: 'unstructured: Labels by index',
    tmpl: '{{index .Labels "app.kubernetes.io/instance"}}.example.com',
    obj: {
      kind: 'Application',
      metadata: { name: 'guestbook', labels: { 'app.kubernetes.io/instance': 'guestbook-prod' } },
    },
    source: 'unstructured',
    want: ['guestbook-prod.example.com'],
  },
  {
    name: 'unstructured: Kind and APIVersion',
    tmpl: '{{.Kind}}.{{.APIVersion}}.example.com',
    obj: vmi({}),
    source: 'unstructured',
    want: ['VirtualMachineInstance.kubevirt.io/v1.example.com'],
  },
  {
    name: 'unstructured: ConfigMap data through .Object',
    tmpl: '{{index .Object.data "hostnames"}}',
    obj: {
      kind: 'ConfigMap',
      metadata: { name: 'multi-dns' },
      data: { hostnames: 'entry1.internal.tld,entry2.example.tld' },
    },
    source: 'unstructured',
    want: ['entry1.internal.tld', 'entry2.example.tld'],
  },
  {
    name: 'unstructured: .Data is not a field of the wrapper',
    tmpl: '{{index .Data "hostnames"}}',
    obj: { kind: 'ConfigMap', metadata: { name: 'multi-dns' }, data: { hostnames: 'a.example' } },
    source: 'unstructured',
    want: { error: /can't evaluate field Data/ },
  },
  {
    name: 'unstructured: else branch when a list is missing',
    tmpl: '\n{{if .Status.interfaces}}{{index .Status.interfaces 0 "ipAddress"}}{{else}}{{.Status.atProvider.endpoint.address}}{{end}}',
    obj: {
      kind: 'RDSInstance',
      metadata: { name: 'my-db' },
      status: { atProvider: { endpoint: { address: 'my-db.abc123.us-west-2.rds' } } },
    },
    source: 'unstructured',
    want: ['my-db.abc123.us-west-2.rds'],
  },
  {
    name: 'unstructured: MetalLB pool, variable and if/else',
    tmpl: '{{$addr := index .Spec.addresses 0}}{{if contains $addr "/32"}}{{trimSuffix $addr "/32"}}{{else}}{{$addr}}{{end}}',
    obj: { kind: 'IPAddressPool', metadata: { name: 'production-pool' }, spec: { addresses: ['192.168.10.11/32'] } },
    source: 'unstructured',
    want: ['192.168.10.11'],
  },
  {
    name: 'unstructured: parenthesized index then field',
    tmpl: '{{(index .Status.internalNodeStatus.addresses 0).address}}',
    obj: {
      kind: 'Node',
      metadata: { name: 'my-node-1' },
      status: { internalNodeStatus: { addresses: [{ type: 'ExternalIP', address: '203.0.113.10' }] } },
    },
    source: 'unstructured',
    want: ['203.0.113.10'],
  },
  {
    name: 'unstructured: nested trims of a variable',
    tmpl: '{{if eq .Kind "ConfigMap"}}{{$url := index .Object.data "default.export-bucket-url"}}{{trimSuffix (trimPrefix $url "https://") "/"}}{{end}}',
    obj: {
      kind: 'ConfigMap',
      metadata: { name: 'app-assets-dns' },
      data: { 'default.export-bucket-url': 'https://my-app-assets-bucket.s3.amazonaws.com/' },
    },
    source: 'unstructured',
    want: ['my-app-assets-bucket.s3.amazonaws.com'],
  },
  {
    name: 'unstructured: an index out of range fails the object',
    tmpl: '{{index .Status.interfaces 0 "ipAddress"}}',
    obj: vmi({ interfaces: [] }),
    source: 'unstructured',
    want: { error: /index out of range: 0/ },
  },
  {
    name: 'unstructured: a missing value given to a function fails the object',
    tmpl: '{{ toLower .Spec.host }}.example.com',
    obj: vmi({}),
    source: 'unstructured',
    want: { error: /invalid value; expected string/ },
  },
  {
    name: 'a missing field prints <no value> (Go)',
    tmpl: '{{ .Spec.host }}.example.com',
    obj: vmi({}),
    source: 'unstructured',
    want: ['<no value>.example.com'],
  },
  {
    name: 'fromJson numbers are floats: 1e+06 as Go prints them',
    tmpl: '{{ index (fromJson "{\\"n\\":1000000,\\"m\\":8080}") "n" }}-{{ index (fromJson "{\\"m\\":8080}") "m" }}',
    obj: meta({}),
    want: ['1e+06-8080'],
  },
  {
    name: 'print puts spaces only between non-strings',
    tmpl: '{{ print 1 2 "a" "b" 3 }}',
    obj: meta({}),
    want: ['1 2ab3'],
  },
  {
    name: 'printf %v %s %d %q and a mismatched verb',
    tmpl: '{{ printf "%v-%s-%d-%q-%d" 1 "x" 3 "q" "y" }}',
    obj: meta({}),
    want: ['1-x-3-"q"-%!d(string=y)'],
  },
  {
    name: 'range over a map runs in key order, with else when empty',
    tmpl: '{{ range $k, $v := .Labels }}{{$k}}{{$v}}.a,{{ end }}{{ range .Annotations }}x{{ else }}none.b{{ end }}',
    obj: meta({ labels: { b: '2', a: '1' } }),
    want: ['a1.a', 'b2.a', 'none.b'],
  },
  {
    name: 'with, else with, continue and variable assignment',
    tmpl: '{{ $n := "" }}{{ range .Spec.hosts }}{{ if eq . "skip" }}{{ continue }}{{ end }}{{ $n = . }}{{ end }}{{ with .Spec.missing }}m{{ else with $n }}{{ . }}{{ end }}',
    obj: { metadata: {}, spec: { hosts: ['a.example', 'skip', 'b.example'] } },
    source: 'unstructured',
    want: ['b.example'],
  },
  {
    name: 'trim markers',
    tmpl: '{{- .Name -}} . {{- "example.com" }}',
    obj: meta({ name: 'x' }),
    want: ['x.example.com'],
  },
  {
    name: 'comments are dropped',
    tmpl: '{{/* a comment */}}{{ .Name }}.example.com',
    obj: meta({ name: 'x' }),
    want: ['x.example.com'],
  },
  {
    name: 'comparison: lt, ge, len, not',
    tmpl: '{{ if and (lt 1 2) (ge (len .Name) 3) (not .Labels.x) }}ok{{ end }}.example.com',
    obj: meta({ name: 'abc' }),
    want: ['ok.example.com'],
  },
];

for (const row of ROWS) {
  test(`template: ${row.name}`, () => {
    const t = FqdnTemplates.parse(flags({ fqdnTemplate: [row.tmpl] }));
    const data =
      row.source === 'unstructured'
        ? unstructuredData(row.obj)
        : typedData(row.obj, row.kind ?? 'testObject', row.kind === 'Service' ? 'v1' : 'v1');
    const got = t.names(data, row.source ?? 'service');
    if (Array.isArray(row.want)) assert.deepEqual(got, { ok: true, value: row.want });
    else {
      assert.equal(got.ok, false);
      assert.match(got.ok ? '' : got.error, row.want.error);
    }
  });
}

// engine_test.go TestNewEngine / TestValidateTemplates, and what we refuse at start-up.
const START_UP: { name: string; flag: keyof TemplateFlags; values: string[]; error?: RegExp }[] = [
  {
    name: 'invalid fqdn template',
    flag: 'fqdnTemplate',
    values: ['{{.Name'],
    error: /^--fqdn-template\[0\] "\{\{\.Name"/,
  },
  { name: 'empty fqdn template', flag: 'fqdnTemplate', values: [] },
  { name: 'blank values', flag: 'fqdnTemplate', values: ['', '  '] },
  { name: 'valid multiple templates', flag: 'fqdnTemplate', values: ['{{.Name}}.a.com', '{{.Name}}.b.com'] },
  {
    name: 'syntax error in the second value',
    flag: 'fqdnTemplate',
    values: ['{{.Name}}.a.com', '{{.Name'],
    error: /^--fqdn-template\[1\]/,
  },
  {
    name: 'invalid target template',
    flag: 'targetTemplate',
    values: ['{{.Status.LoadBalancer.Ingress'],
    error: /^--target-template\[0\] "\{\{\.Status\.LoadBalancer\.Ingress"/,
  },
  {
    name: 'invalid fqdn-target template',
    flag: 'fqdnTargetTemplate',
    values: ['{{.Name}}.example.com:{{.Status'],
    error: /^--fqdn-target-template\[0\]/,
  },
  {
    name: 'define',
    flag: 'fqdnTemplate',
    values: ['{{ define "foo" }}bar{{ end }}{{ template "foo" }}'],
    error: /'define' is not supported/,
  },
  { name: 'template', flag: 'fqdnTemplate', values: ['{{ template "foo" }}'], error: /'template' is not supported/ },
  { name: 'block', flag: 'fqdnTemplate', values: ['{{ block "foo" . }}x{{ end }}'], error: /'block' is not supported/ },
  { name: 'call', flag: 'fqdnTemplate', values: ['{{ call .Name }}'], error: /function "call" is not supported/ },
  { name: 'html', flag: 'fqdnTemplate', values: ['{{ html .Name }}'], error: /function "html" is not supported/ },
  { name: 'slice', flag: 'fqdnTemplate', values: ['{{ slice .Name 1 }}'], error: /function "slice" is not supported/ },
  {
    name: 'an unknown function',
    flag: 'fqdnTemplate',
    values: ['{{ upper .Name }}'],
    error: /function "upper" is not supported/,
  },
  {
    name: 'a character constant',
    flag: 'fqdnTemplate',
    values: ["{{ 'a' }}"],
    error: /character constant 'a' is not supported/,
  },
  {
    name: 'arguments to a field',
    flag: 'fqdnTemplate',
    values: ['{{ .Name "x" }}'],
    error: /\.Name is not a function/,
  },
  { name: 'an undefined variable', flag: 'fqdnTemplate', values: ['{{ $x }}'], error: /undefined variable "\$x"/ },
  {
    name: 'isSource with an unknown source',
    flag: 'fqdnTemplate',
    values: ['{{ if isSource "servics" }}y{{ end }}'],
    error: /unknown source "servics"/,
  },
  {
    name: 'a printf verb we do not write',
    flag: 'fqdnTemplate',
    values: ['{{ printf "%05d" 1 }}'],
    error: /printf verb "%05d" is not supported/,
  },
  { name: 'nil as a command', flag: 'fqdnTemplate', values: ['{{ nil | print }}'], error: /nil is not a command/ },
  { name: 'break outside range', flag: 'fqdnTemplate', values: ['{{ break }}'], error: /outside \{\{range\}\}/ },
  { name: 'unclosed if', flag: 'fqdnTemplate', values: ['{{ if .Name }}x'], error: /unexpected EOF/ },
];

for (const row of START_UP) {
  test(`start-up: ${row.name}`, () => {
    const parse = () => FqdnTemplates.parse(flags({ [row.flag]: row.values }));
    if (row.error) assert.throws(parse, (e: Error) => e instanceof TemplateConfigError && row.error!.test(e.message));
    else assert.doesNotThrow(parse);
  });
}

// unstructured_fqdn_test.go: --fqdn-target-template pairs.
const PAIRS: { name: string; tmpl: string; obj: TemplateObject; want: [string, string][]; skipped?: string[] }[] = [
  {
    name: 'EndpointSlice per-pod pairs',
    tmpl: '\n{{if and (eq .Kind "EndpointSlice") (hasKey .Labels "service.kubernetes.io/headless")}}\n{{range $ep := .Object.endpoints}}{{if $ep.conditions.ready}}{{range $ep.addresses}}{{$ep.targetRef.name}}.pod.com:{{.}},{{end}}{{end}}{{end}}{{end}}',
    obj: {
      kind: 'EndpointSlice',
      metadata: { name: 'test-headless-abc12', labels: { 'service.kubernetes.io/headless': '' } },
      endpoints: [
        { addresses: ['10.244.1.2', '2001:db8::1'], conditions: { ready: true }, targetRef: { name: 'app-abc12' } },
        { addresses: ['10.244.2.3', '10.244.2.4'], conditions: { ready: true }, targetRef: { name: 'app-def34' } },
        { addresses: ['10.244.9.9'], conditions: { ready: false }, targetRef: { name: 'app-notready' } },
      ],
    },
    want: [
      ['app-abc12.pod.com', '10.244.1.2'],
      ['app-abc12.pod.com', '2001:db8::1'],
      ['app-def34.pod.com', '10.244.2.3'],
      ['app-def34.pod.com', '10.244.2.4'],
    ],
  },
  {
    name: 'no values when the condition is not met',
    tmpl: '{{if hasKey .Labels "service.kubernetes.io/headless"}}{{.Name}}.pod.com:1.2.3.4{{end}}',
    obj: { kind: 'EndpointSlice', metadata: { name: 'x', labels: {} } },
    want: [],
  },
  {
    name: 'a pair without ":" is skipped',
    tmpl: 'nocolonseparator',
    obj: vmi({}),
    want: [],
    skipped: ['nocolonseparator'],
  },
  { name: 'a pair with an empty host is skipped', tmpl: ':10.0.0.1', obj: vmi({}), want: [], skipped: [':10.0.0.1'] },
  {
    name: 'a pair with an empty target is skipped',
    tmpl: 'host.example.com:',
    obj: vmi({}),
    want: [],
    skipped: ['host.example.com:'],
  },
];

for (const row of PAIRS) {
  test(`fqdn-target pairs: ${row.name}`, () => {
    const t = FqdnTemplates.parse(flags({ fqdnTargetTemplate: [row.tmpl] }));
    const got = t.pairs(unstructuredData(row.obj), 'unstructured');
    assert.ok(got.ok);
    assert.deepEqual(
      got.value.pairs.map((p) => [p.host, p.target]),
      row.want,
    );
    assert.deepEqual(got.value.skipped, row.skipped ?? []);
  });
}

// engine_test.go TestCombineWithEndpoints: when a template pass runs.
const COMBINE: { name: string; templates: Partial<TemplateFlags>; own: number; want: boolean }[] = [
  { name: 'no template: never', templates: {}, own: 0, want: false },
  { name: 'combine=false with own records: not', templates: { fqdnTemplate: ['{{.Name}}'] }, own: 1, want: false },
  { name: 'combine=false without own records: runs', templates: { fqdnTemplate: ['{{.Name}}'] }, own: 0, want: true },
  {
    name: 'combine=true with own records: runs',
    templates: { fqdnTemplate: ['{{.Name}}'], combineFqdnAnnotation: true },
    own: 2,
    want: true,
  },
  {
    name: 'a target template alone counts as configured',
    templates: { targetTemplate: ['{{.Name}}'] },
    own: 0,
    want: true,
  },
];
for (const row of COMBINE) {
  test(`combine: ${row.name}`, () => {
    assert.equal(FqdnTemplates.parse(flags(row.templates)).applies(row.own), row.want);
  });
}
