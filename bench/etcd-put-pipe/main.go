// etcd-put-pipe: the benchmark's etcd writer. bench:dns's churn writes 100 changes a second while
// dnsperf floods the server; from Node (etcd3 over grpc-js) each put cost about 2 ms of CPU on
// the core dnsperf runs on, which the flood lost whatever server it measured. This program puts
// through etcd's own Go client, which costs a small fraction of that.
//
// Protocol, one line each way per put: stdin "<seq>\t<key>\t<value>\n" (the value without tabs
// or newlines); stdout "<seq>\n" once etcd acknowledged it, or "<seq>\terror\t<message>\n".
// Puts run concurrently, so replies come in the order etcd answers. Exits at the end of stdin
// once every put has been answered.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func main() {
	endpoints := flag.String("endpoints", "", "etcd client URLs, comma-separated")
	timeout := flag.Duration("timeout", 5*time.Second, "deadline of each put")
	flag.Parse()
	if *endpoints == "" {
		fmt.Fprintln(os.Stderr, "etcd-put-pipe: --endpoints is required")
		os.Exit(2)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(*endpoints, ","), DialTimeout: *timeout})
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd-put-pipe:", err)
		os.Exit(1)
	}
	defer cli.Close()

	out := bufio.NewWriter(os.Stdout)
	var outMu sync.Mutex
	reply := func(line string) {
		outMu.Lock()
		defer outMu.Unlock()
		out.WriteString(line)
		out.Flush()
	}

	var pending sync.WaitGroup
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64*1024), 2*1024*1024)
	for in.Scan() {
		fields := strings.SplitN(in.Text(), "\t", 3)
		if len(fields) != 3 {
			fmt.Fprintf(os.Stderr, "etcd-put-pipe: expected <seq>\\t<key>\\t<value>, got %q\n", in.Text())
			os.Exit(2)
		}
		seq, key, value := fields[0], fields[1], fields[2]
		pending.Add(1)
		go func() {
			defer pending.Done()
			ctx, cancel := context.WithTimeout(context.Background(), *timeout)
			defer cancel()
			if _, err := cli.Put(ctx, key, value); err != nil {
				reply(fmt.Sprintf("%s\terror\t%s\n", seq, strings.ReplaceAll(err.Error(), "\n", " ")))
				return
			}
			reply(seq + "\n")
		}()
	}
	pending.Wait()
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "etcd-put-pipe: reading stdin:", err)
		os.Exit(1)
	}
}
