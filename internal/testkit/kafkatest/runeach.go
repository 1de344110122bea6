package kafkatest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ToolRun is what one run of a Kafka tool printed and how it exited.
type ToolRun struct {
	Stdout, Stderr []byte
	Exit           int
}

// RunEach runs mainClass once for each argument list, as Run would, but
// all in one JVM: the tool's own main, with its standard streams captured
// per run and its exit (Kafka's tools exit through Kafka's Exit class)
// turned into the run's exit code. A test that asks a local tool
// (kafka-features version-mapping, kafka-storage format) dozens of
// questions pays one JVM start instead of one per question: on make
// test's two cores each start is half a second of CPU.
//
// Only for tools that keep no state between runs. A System.exit of the
// tool's own (argparse4j's parseArgsOrFail) is trapped too, where the JDK
// still has a security manager (17 does); log lines go to the JVM's own
// stdout (the logger holds it), not to a run's.
func (d *Distribution) RunEach(ctx context.Context, mainClass string, argss [][]string) ([]ToolRun, error) {
	calls := make([]ToolCall, len(argss))
	for i, args := range argss {
		calls[i] = ToolCall{Main: mainClass, Args: args}
	}
	return d.RunCalls(ctx, calls)
}

// ToolCall is one run of a tool: its main class and arguments.
type ToolCall struct {
	Main string
	Args []string
}

// RunCalls is RunEach for runs of several tools, in order, in one JVM.
func (d *Distribution) RunCalls(ctx context.Context, calls []ToolCall) ([]ToolRun, error) {
	dir, err := os.MkdirTemp("", "kmeta-runeach-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "RunEach.java")
	if err := os.WriteFile(src, []byte(runEachJava), 0o644); err != nil {
		return nil, err
	}
	var in bytes.Buffer
	for _, c := range calls {
		if c.Main == "" {
			return nil, fmt.Errorf("kafkatest: RunCalls: a call without a main class")
		}
		for _, a := range append([]string{c.Main}, c.Args...) {
			if strings.ContainsAny(a, "\x00\n") {
				return nil, fmt.Errorf("kafkatest: RunCalls: argument %q holds a NUL or a newline", a)
			}
		}
		in.WriteString(strings.Join(append([]string{c.Main}, c.Args...), "\x00") + "\n")
	}
	inPath, outPath := filepath.Join(dir, "runs.in"), filepath.Join(dir, "runs.out")
	if err := os.WriteFile(inPath, in.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if _, stderr, err := d.Run(ctx, src, inPath, outPath); err != nil {
		return nil, fmt.Errorf("kafkatest: %s..., %d runs in one JVM: %w\n%s", calls[0].Main, len(calls), err, tail(stderr, 30))
	}
	b, err := os.ReadFile(outPath)
	if err != nil {
		return nil, err
	}
	// Each run: exit code, stdout length and bytes, stderr length and
	// bytes (big-endian int32s, as Java's DataOutputStream writes them).
	r := bytes.NewReader(b)
	runs := make([]ToolRun, 0, len(calls))
	for range calls {
		var exit, n int32
		var run ToolRun
		if err := binary.Read(r, binary.BigEndian, &exit); err != nil {
			return nil, fmt.Errorf("kafkatest: RunCalls: %d runs of %d answered: %w", len(runs), len(calls), err)
		}
		run.Exit = int(exit)
		for _, p := range []*[]byte{&run.Stdout, &run.Stderr} {
			if err := binary.Read(r, binary.BigEndian, &n); err != nil || n < 0 || int(n) > r.Len() {
				return nil, fmt.Errorf("kafkatest: RunCalls: run %d: bad output length %d (%v)", len(runs), n, err)
			}
			*p = make([]byte, n)
			if _, err := io.ReadFull(r, *p); err != nil {
				return nil, err
			}
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// runEachJava: args are the file of runs (one per line: the tool's main
// class, then its arguments, separated by NUL) and the file the results
// go to.
// Kafka's Exit class (org.apache.kafka.common.utils.Exit up to 3.x,
// ...utils.internals.Exit in 4.x; both set where present) is given a
// procedure that throws instead of exiting.
const runEachJava = `import java.io.*;
import java.lang.reflect.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

public class RunEach {
    static final class Exited extends RuntimeException {
        final int code;
        Exited(int code) { super(null, null, false, false); this.code = code; }
    }

    static void trapExit(String cls) throws Exception {
        Class<?> exit;
        try {
            exit = Class.forName(cls);
        } catch (ClassNotFoundException e) {
            return;
        }
        Class<?> proc = Class.forName(cls + "$Procedure");
        Object p = Proxy.newProxyInstance(proc.getClassLoader(), new Class<?>[] {proc}, (self, m, a) -> {
            if (m.getName().equals("execute")) throw new Exited((Integer) a[0]);
            if (m.getName().equals("toString")) return "RunEach exit trap";
            if (m.getName().equals("hashCode")) return 0;
            if (m.getName().equals("equals")) return self == a[0];
            return null;
        });
        exit.getMethod("setExitProcedure", proc).invoke(null, p);
        try {
            exit.getMethod("setHaltProcedure", proc).invoke(null, p);
        } catch (NoSuchMethodException e) {
            // no halt procedure in this release
        }
    }

    @SuppressWarnings("removal")
    static void trapSystemExit() {
        try {
            System.setSecurityManager(new SecurityManager() {
                @Override public void checkExit(int status) { throw new Exited(status); }
                @Override public void checkPermission(java.security.Permission p) {}
                @Override public void checkPermission(java.security.Permission p, Object context) {}
            });
        } catch (UnsupportedOperationException e) {
            // A JDK without a security manager: a tool that calls
            // System.exit itself ends the batch, and RunEach says so.
        }
    }

    public static void main(String[] argv) throws Exception {
        trapExit("org.apache.kafka.common.utils.Exit");
        trapExit("org.apache.kafka.common.utils.internals.Exit");
        // argparse4j's parseArgsOrFail, which some tools use, calls
        // System.exit directly.
        trapSystemExit();
        Map<String, Method> mains = new HashMap<>();
        PrintStream realOut = System.out, realErr = System.err;
        try (DataOutputStream res = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(argv[1])))) {
            for (String line : Files.readAllLines(Paths.get(argv[0]), StandardCharsets.UTF_8)) {
                String[] fields = line.split("\u0000", -1);
                Method main = mains.get(fields[0]);
                if (main == null) {
                    main = Class.forName(fields[0]).getMethod("main", String[].class);
                    mains.put(fields[0], main);
                }
                String[] args = Arrays.copyOfRange(fields, 1, fields.length);
                ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
                System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                int code = 0;
                try {
                    main.invoke(null, (Object) args);
                } catch (InvocationTargetException e) {
                    if (e.getCause() instanceof Exited) {
                        code = ((Exited) e.getCause()).code;
                    } else {
                        // As the JVM reports an exception main throws, and
                        // exits: 1.
                        System.err.print("Exception in thread \"main\" ");
                        e.getCause().printStackTrace(System.err);
                        code = 1;
                    }
                } finally {
                    System.out.flush();
                    System.err.flush();
                    System.setOut(realOut);
                    System.setErr(realErr);
                }
                res.writeInt(code);
                res.writeInt(out.size());
                out.writeTo(res);
                res.writeInt(err.size());
                err.writeTo(res);
            }
        }
    }
}
`
