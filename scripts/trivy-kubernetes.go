// trivy-kubernetes: the Kubernetes part of `trivy config`, built from trivy's own packages (its
// Kubernetes scanner with the checks and libraries embedded in that trivy version), offline and
// without the rest of trivy, which takes several times longer to build (scripts/setup-test-env.sh).
// For each DIR, the files `trivy config` would take as Kubernetes manifests are scanned; each
// failed check is printed as one JSON line: file (under DIR), id, severity, title, message.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/aquasecurity/trivy/pkg/iac/rego"
	k8s "github.com/aquasecurity/trivy/pkg/iac/scanners/kubernetes"
	"github.com/aquasecurity/trivy/pkg/mapfs"
	"gopkg.in/yaml.v3"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(trivyVersion())
		return
	}
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: trivy-kubernetes DIR... | --version")
		os.Exit(2)
	}
	// As `trivy config` sets it up: embedded checks and libraries, checks that need a newer
	// trivy than this one skipped. One scanner: the checks are compiled once for every DIR.
	scanner := k8s.NewScanner(
		rego.WithEmbeddedPolicies(true),
		rego.WithEmbeddedLibraries(true),
		rego.WithTrivyVersion(trivyVersion()),
	)
	out := json.NewEncoder(os.Stdout)
	for _, dir := range os.Args[1:] {
		files, err := kubernetesFiles(dir)
		if err != nil {
			fail(err)
		}
		results, err := scanner.ScanFS(context.Background(), files, ".")
		if err != nil {
			fail(err)
		}
		for _, r := range results.GetFailed() {
			rule := r.Rule()
			if err := out.Encode(map[string]string{
				"file":     r.Range().GetFilename(),
				"id":       rule.ID,
				"severity": string(r.Severity()),
				"title":    rule.Summary,
				"message":  r.Description(),
			}); err != nil {
				fail(err)
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "trivy-kubernetes:", err)
	os.Exit(2)
}

// trivyVersion: the trivy module's version built in ("0.74.0"), as a trivy release reports itself.
func trivyVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/aquasecurity/trivy" {
				return strings.TrimPrefix(d.Version, "v")
			}
		}
	}
	return "dev"
}

// kubernetesFiles: the files under dir that `trivy config` hands its Kubernetes scanner.
func kubernetesFiles(dir string) (*mapfs.FS, error) {
	files := mapfs.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || !isKubernetes(data) {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if err := files.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return err
		}
		return files.WriteFile(rel, path)
	})
	return files, err
}

// isKubernetes is trivy's rule (pkg/iac/detection, detectKubernetes for YAML): valid YAML with a
// document that has apiVersion, kind and metadata. Copied, because that package links every
// other IaC parser trivy has, and their remote-module fetchers.
func isKubernetes(data []byte) bool {
	if yaml.NewDecoder(bytes.NewReader(data)).Decode(new(any)) != nil {
		return false
	}
	marker := []byte("\n---\n")
	if bytes.Contains(data, []byte("\r\n---\r\n")) {
		marker = []byte("\r\n---\r\n")
	}
	for part := range bytes.SplitSeq(data, marker) {
		var object map[string]any
		if yaml.Unmarshal(part, &object) != nil {
			continue
		}
		_, hasAPIVersion := object["apiVersion"]
		_, hasKind := object["kind"]
		_, hasMetadata := object["metadata"]
		if hasAPIVersion && hasKind && hasMetadata {
			return true
		}
	}
	return false
}
