// Command mongo-server runs FerretDB (a MongoDB wire-protocol server on PostgreSQL) embedded,
// so tests get a real MongoDB-wire server where no mongod can be installed.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	pg := flag.String("postgresql-url", "postgres://root@127.0.0.1:5432/test", "PostgreSQL URL of the backing database")
	flag.Parse()

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: *listen},
		Handler:       "postgresql",
		PostgreSQLURL: *pg,
	})
	if err != nil {
		log.Fatalf("mongo-server: %v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx)
	}()
	fmt.Fprintf(os.Stderr, "mongo-server: listening on %s\n", *listen)
	<-done
}
