// Command etcd is a minimal wrapper that runs the upstream etcd server from its
// Go module (go.etcd.io/etcd/server/v3), so tests need no prebuilt etcd binary.
// build.sh copies this file into a generated module in the build cache.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
