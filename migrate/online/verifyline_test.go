package online

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/toolstub"
	"github.com/kmeta/kmeta/model"
)

// TestZKBehindFixIsTheVerifyLine: where ZooKeeper and KRaft differ in
// dual-write, status, stage KRaftPostMigration and rollback each give as
// the fix the one kmeta verify line that lists what status counted: both
// sources as the command read them (VerifySources), the classes status
// leaves out left out, and for a ZooKeeper read with a digest login the
// stop when $KMETA_ZK_AUTH is unset. Run with sh, each line gives kmeta
// exactly those args; the secured one stops before kmeta without the
// variable and never carries the password.
func TestZKBehindFixIsTheVerifyLine(t *testing.T) {
	const ignores = " --ignore brokers --ignore migration --ignore runtime"
	const guard = `: "${KMETA_ZK_AUTH:?set it to the USER:PASSWORD kmeta read ZooKeeper with}" && `
	secured := []string{"--zk", "zk://zk1:2281/kafka", "--kraft", "kraft:/var/lib/kafka meta", "--zk-tls-ca", "/etc/zk/ca.pem", "--command-config", "/etc/kafka/admin.properties"}
	for _, tc := range []struct {
		name    string
		edit    func(*Input)
		want    string
		args    []string // what kmeta is given, after "verify"
		guarded bool
	}{
		{"the sources alone", func(in *Input) {},
			"kmeta verify --zk zk://zk1:2181/kafka --kraft kraft:/var/lib/kafka/meta" + ignores,
			[]string{"--zk", "zk://zk1:2181/kafka", "--kraft", "kraft:/var/lib/kafka/meta"}, false},
		{"TLS, a digest login, client settings", func(in *Input) {
			in.ZKSource, in.ZKDigest, in.VerifySources = "zk://zk1:2281/kafka", true, secured
		}, guard + "kmeta verify --zk zk://zk1:2281/kafka --kraft 'kraft:/var/lib/kafka meta' --zk-tls-ca /etc/zk/ca.pem --command-config /etc/kafka/admin.properties" + ignores,
			secured, true},
		{"a digest login set, a ZooKeeper dump read", func(in *Input) {
			in.ZKSource, in.ZKDigest = "zkdump:/tmp/zk.json", true
		}, "kmeta verify --zk zkdump:/tmp/zk.json --kraft kraft:/var/lib/kafka/meta" + ignores,
			[]string{"--zk", "zkdump:/tmp/zk.json", "--kraft", "kraft:/var/lib/kafka/meta"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := walk{t}
			in := w.dualWriting()
			// The log holds no topic ZooKeeper holds: the two differ.
			in.KRaft = kraftImage(model.MigrationMigration, map[int32]bool{1: true, 2: true, 3: true}, true)
			in.ZKSource, in.KRaftSource = "zk://zk1:2181/kafka", "kraft:/var/lib/kafka/meta"
			tc.edit(&in)

			st, err := Observe(in)
			if err != nil {
				t.Fatal(err)
			}
			sr, err := Stage(in, StageOptions{Phase: KRaftPostMigration})
			if err != nil {
				t.Fatal(err)
			}
			rr, err := Rollback(in)
			if err != nil {
				t.Fatal(err)
			}
			for what, fs := range map[string][]model.Finding{"status": st.Findings, "stage": sr.Checks, "rollback": rr.Checks} {
				var fixes []string
				for _, f := range fs {
					if f.Code == CodeZKBehind {
						fixes = append(fixes, f.Fix)
					}
				}
				if !slices.Equal(fixes, []string{tc.want}) {
					t.Errorf("%s: the fixes of %s are\n\t%q\nwant\n\t%q", what, CodeZKBehind, fixes, tc.want)
				}
			}

			stub := toolstub.New(t, "kmeta")
			want := slices.Concat([]string{"verify"}, tc.args, strings.Fields(ignores))
			out, calls, err := stub.Run(t, "", tc.want, "KMETA_ZK_AUTH=admin:pw")
			if err != nil || len(calls) != 1 || !slices.Equal(calls[0].Args, want) {
				t.Errorf("%s:\n%v %q, want %q\n%s", tc.want, err, calls, want, out)
			}
			out, calls, err = stub.Run(t, "", tc.want, "KMETA_ZK_AUTH=")
			if stopped := err != nil && len(calls) == 0 && strings.Contains(out, "KMETA_ZK_AUTH"); stopped != tc.guarded {
				t.Errorf("KMETA_ZK_AUTH unset: stopped %v, want %v (%v, calls %q)\n%s", stopped, tc.guarded, err, calls, out)
			}
		})
	}
}
