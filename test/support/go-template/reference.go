// The reference for test/runtime/controller/fqdn/fqdn-template-go.e2e.test.ts: Go's own text/template with
// external-dns v0.22's function map (source/template/functions.go) and its unstructured wrapper
// (source/unstructured.go), run on the cases read from stdin as JSON; the output is what
// external-dns's execTemplate returns (split at ",", trimmed, one trailing dot off, sorted) or
// the error. Written for the test from external-dns's documented behaviour, stdlib only.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"sort"
	"strings"
	"text/template"
)

type wrapper struct {
	Name        string
	Namespace   string
	Kind        string
	APIVersion  string
	Labels      map[string]string
	Annotations map[string]string
	Metadata    map[string]any
	Spec        map[string]any
	Status      map[string]any
	Object      map[string]any
}

type testCase struct {
	Template string         `json:"template"`
	Object   map[string]any `json:"object"`
	Source   string         `json:"source"`
}

type result struct {
	Names []string `json:"names,omitempty"`
	Error string   `json:"error,omitempty"`
}

var sources = []string{"node", "service", "ingress", "pod", "gateway-httproute", "gateway-grpcroute",
	"gateway-tlsroute", "gateway-tcproute", "gateway-udproute", "istio-gateway", "istio-virtualservice",
	"ambassador-host", "contour-httpproxy", "gloo-proxy", "traefik-proxy", "openshift-route", "fake", "empty",
	"connector", "crd", "skipper-routegroup", "kong-tcpingress", "f5-virtualserver", "f5-transportserver", "unstructured"}

func suitable(t string) string {
	ip, err := netip.ParseAddr(t)
	if err != nil {
		return "CNAME"
	}
	if ip.Is4() {
		return "A"
	}
	return "AAAA"
}

func funcs(source string) template.FuncMap {
	return template.FuncMap{
		"contains":   strings.Contains,
		"trimPrefix": strings.TrimPrefix,
		"trimSuffix": strings.TrimSuffix,
		"trim":       strings.TrimSpace,
		"toLower":    strings.ToLower,
		"replace":    func(o, n, t string) string { return strings.ReplaceAll(t, o, n) },
		"isIPv6":     func(t string) bool { return suitable(t) == "AAAA" },
		"isIPv4":     func(t string) bool { return suitable(t) == "A" },
		"isSource": func(want string) (bool, error) {
			for _, s := range sources {
				if strings.EqualFold(s, want) {
					return strings.EqualFold(source, want), nil
				}
			}
			return false, fmt.Errorf("isSource: unknown source %q", want)
		},
		"hasKey": func(m map[string]string, k string) bool { _, ok := m[k]; return ok },
		"fromJson": func(v string) any {
			var out any
			_ = json.Unmarshal([]byte(v), &out)
			return out
		},
	}
}

// ints turns whole json.Numbers into int64 and the others into float64, as unstructured decoding does.
func ints(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = ints(e)
		}
	case []any:
		for i, e := range x {
			x[i] = ints(e)
		}
	}
	return v
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for k, e := range m {
		out[k], _ = e.(string)
	}
	return out
}

func main() {
	dec := json.NewDecoder(os.Stdin)
	dec.UseNumber()
	var cases []testCase
	if err := dec.Decode(&cases); err != nil {
		panic(err)
	}
	results := make([]result, 0, len(cases))
	for _, c := range cases {
		obj := ints(c.Object).(map[string]any)
		meta, _ := obj["metadata"].(map[string]any)
		w := &wrapper{Object: obj, Metadata: meta, Labels: stringMap(meta["labels"]), Annotations: stringMap(meta["annotations"])}
		w.Name, _ = meta["name"].(string)
		w.Namespace, _ = meta["namespace"].(string)
		w.Kind, _ = obj["kind"].(string)
		w.APIVersion, _ = obj["apiVersion"].(string)
		w.Spec, _ = obj["spec"].(map[string]any)
		w.Status, _ = obj["status"].(map[string]any)
		t, err := template.New("endpoint").Funcs(funcs(c.Source)).Parse(c.Template)
		if err != nil {
			results = append(results, result{Error: err.Error()})
			continue
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, w); err != nil {
			results = append(results, result{Error: err.Error()})
			continue
		}
		set := map[string]bool{}
		for _, name := range strings.Split(buf.String(), ",") {
			name = strings.TrimSuffix(strings.TrimSpace(name), ".")
			if name != "" {
				set[name] = true
			}
		}
		names := []string{}
		for n := range set {
			names = append(names, n)
		}
		sort.Strings(names)
		results = append(results, result{Names: names})
	}
	_ = json.NewEncoder(os.Stdout).Encode(results)
}
