// cert-manager-controller: cert-manager's control loops as one process, for the tests (test/acme/).
// cert-manager's own controller main package is a separate module (cmd/controller) that the Go module
// proxy does not serve, so scripts/setup-test-env.sh builds this program against the published
// github.com/cert-manager/cert-manager library instead: the same registered controllers, run the way
// the release binary runs them (one controller Context factory, each controller's Run, then the shared
// informers), with no leader election, metrics or webhook. Only the flags the tests need.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/cert-manager/cert-manager/pkg/controller"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"golang.org/x/sync/errgroup"
	"k8s.io/klog/v2"

	// Each package registers its controllers with controller.Known().
	_ "github.com/cert-manager/cert-manager/pkg/controller/acmechallenges"
	_ "github.com/cert-manager/cert-manager/pkg/controller/acmeorders"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/acme"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	// And the issuer types those controllers look up (the release links CA and SelfSigned too).
	_ "github.com/cert-manager/cert-manager/pkg/issuer/acme"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server")
	clusterResourceNamespace := flag.String("cluster-resource-namespace", "cert-manager",
		"namespace of the Secrets ClusterIssuers refer to")
	controllers := flag.String("controllers", "", "comma-separated controllers to run (default: every one linked in)")
	nameservers := flag.String("dns01-recursive-nameservers", "",
		"comma-separated host:port the DNS-01 self-check asks (and only those: the release's --dns01-recursive-nameservers-only)")
	retry := flag.Duration("dns01-check-retry-period", 10*time.Second, "time between two DNS-01 self-checks")
	version := flag.Bool("version", false, "print the cert-manager library version and exit")
	klog.InitFlags(flag.CommandLine)
	flag.Parse()
	if *version {
		fmt.Println(certManagerVersion())
		return
	}
	logf.InitLogs()
	defer logf.FlushLogs()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "controller")
	if err := run(ctx, *kubeconfig, *clusterResourceNamespace, list(*controllers), list(*nameservers), *retry); err != nil {
		logf.Log.Error(err, "cert-manager controller failed")
		logf.FlushLogs()
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, clusterResourceNamespace string, enabled, nameservers []string,
	retry time.Duration) error {
	// The release binary's defaults for what the flags above leave out.
	factory, err := controller.NewContextFactory(ctx, controller.ContextOptions{
		Kubeconfig:         kubeconfig,
		KubernetesAPIQPS:   20,
		KubernetesAPIBurst: 50,
		IssuerOptions:      controller.IssuerOptions{ClusterResourceNamespace: clusterResourceNamespace},
		ACMEOptions: controller.ACMEOptions{
			DNS01CheckAuthoritative: len(nameservers) == 0,
			DNS01Nameservers:        nameservers,
			DNS01CheckRetryPeriod:   retry,
		},
		CertificateOptions: controller.CertificateOptions{
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
		SchedulerOptions: controller.SchedulerOptions{MaxConcurrentChallenges: 60},
	})
	if err != nil {
		return err
	}
	shared, err := factory.Build()
	if err != nil {
		return err
	}
	known := controller.Known()
	if len(enabled) == 0 {
		for name := range known {
			enabled = append(enabled, name)
		}
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, name := range enabled {
		construct, ok := known[name]
		if !ok {
			return fmt.Errorf("--controllers: unknown controller %q", name)
		}
		c, err := construct(factory)
		if err != nil {
			return fmt.Errorf("controller %s: %w", name, err)
		}
		logf.Log.Info("starting controller", "controller", name)
		g.Go(func() error { return c.Run(5, ctx) })
	}
	// Informers start after every controller asked for its own, as in the release binary.
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
	return g.Wait()
}

func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func certManagerVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/cert-manager/cert-manager" {
				return d.Version
			}
		}
	}
	return "dev"
}
