// An independent oracle for the audit log's hashing, proofs and signed notes: Go's golang.org/x/mod/sumdb/tlog
// and sumdb/note (Debian: golang-go, golang-golang-x-mod-dev). test/audit/go-oracle.test.ts runs it when `go` and
// that package are installed (GOPATH mode, no network), feeding a JSON request on stdin and comparing answers.
package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type request struct {
	Entries     []string   `json:"entries"`
	Inclusion   [][2]int64 `json:"inclusion"`   // [index, size]
	Consistency [][2]int64 `json:"consistency"` // [first, second]
	Note        string     `json:"note"`        // a checkpoint signed by Strongroom
	VerifierKey string     `json:"verifierKey"` // Strongroom's audit key, as it serves it
	SignName    string     `json:"signName"`    // a key name for a note Go signs
	SignSeed    string     `json:"signSeed"`    // hex Ed25519 seed of that key
	SignText    string     `json:"signText"`
}

type answer struct {
	Leaves      []string   `json:"leaves"`
	Roots       []string   `json:"roots"` // root at every size 0..n
	Inclusion   [][]string `json:"inclusion"`
	Consistency [][]string `json:"consistency"`
	NoteText    string     `json:"noteText"`
	NoteError   string     `json:"noteError,omitempty"`
	SignedNote  string     `json:"signedNote"`
	GoVerifier  string     `json:"goVerifier"`
}

func hashes(list []tlog.Hash) []string {
	out := []string{}
	for _, h := range list {
		out = append(out, base64.StdEncoding.EncodeToString(h[:]))
	}
	return out
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		panic(err)
	}
	var stored []tlog.Hash
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			out[i] = stored[x]
		}
		return out, nil
	})
	ans := answer{Leaves: []string{}, Roots: []string{}}
	root, _ := tlog.TreeHash(0, reader)
	ans.Roots = append(ans.Roots, base64.StdEncoding.EncodeToString(root[:]))
	for i, entry := range req.Entries {
		leaf := tlog.RecordHash([]byte(entry))
		ans.Leaves = append(ans.Leaves, base64.StdEncoding.EncodeToString(leaf[:]))
		more, err := tlog.StoredHashes(int64(i), []byte(entry), reader)
		if err != nil {
			panic(err)
		}
		stored = append(stored, more...)
		root, err := tlog.TreeHash(int64(i+1), reader)
		if err != nil {
			panic(err)
		}
		ans.Roots = append(ans.Roots, base64.StdEncoding.EncodeToString(root[:]))
	}
	for _, pair := range req.Inclusion {
		proof, err := tlog.ProveRecord(pair[1], pair[0], reader)
		if err != nil {
			panic(err)
		}
		ans.Inclusion = append(ans.Inclusion, hashes(proof))
	}
	for _, pair := range req.Consistency {
		proof, err := tlog.ProveTree(pair[1], pair[0], reader)
		if err != nil {
			panic(err)
		}
		ans.Consistency = append(ans.Consistency, hashes(proof))
	}
	if req.Note != "" {
		verifier, err := note.NewVerifier(req.VerifierKey)
		if err != nil {
			ans.NoteError = err.Error()
		} else if msg, err := note.Open([]byte(req.Note), note.VerifierList(verifier)); err != nil {
			ans.NoteError = err.Error()
		} else {
			ans.NoteText = msg.Text
		}
	}
	if req.SignName != "" {
		seed, err := hex.DecodeString(req.SignSeed)
		if err != nil {
			panic(err)
		}
		public := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
		vkey, err := note.NewEd25519VerifierKey(req.SignName, public)
		if err != nil {
			panic(err)
		}
		ans.GoVerifier = vkey
		// The signer key format: PRIVATE+KEY+<name>+<hex id>+base64(0x01 || seed).
		skey := "PRIVATE+KEY+" + req.SignName + "+" + vkey[len(req.SignName)+1:len(req.SignName)+9] + "+" +
			base64.StdEncoding.EncodeToString(append([]byte{1}, seed...))
		signer, err := note.NewSigner(skey)
		if err != nil {
			panic(err)
		}
		signed, err := note.Sign(&note.Note{Text: req.SignText}, signer)
		if err != nil {
			panic(err)
		}
		ans.SignedNote = string(signed)
	}
	if err := json.NewEncoder(os.Stdout).Encode(ans); err != nil {
		panic(err)
	}
}
