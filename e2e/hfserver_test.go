package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// hfServer serves files on 127.0.0.1 in Hugging Face's URL layout,
// /{repo}/resolve/{revision}/{path}, with Range support.
func hfServer(t *testing.T, repo string, files map[string]string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{owner}/{name}/resolve/{rev}/{path...}", func(w http.ResponseWriter, r *http.Request) {
		local, ok := files[r.PathValue("path")]
		if r.PathValue("owner")+"/"+r.PathValue("name") != repo || !ok {
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		f, err := os.Open(local)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, local, time.Time{}, f)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}
