import java.io.*;
import java.lang.reflect.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

// ToolArgs reads command lines the way kafka-configs and kafka-topics do,
// with the tools' own option classes and parsers (ConfigCommand in Scala
// up to 3.9, in Java from 4.0; TopicCommand in Scala up to 2.8, in Java
// after), and writes what each would send: the configs it would set and
// delete, or the tool's refusal.
//
// Arguments: the output file, then one file per command line, its words
// separated by NUL, the first word the tool (kafka-configs, kafka-topics,
// with or without .sh). Output, per command line i, tab-separated, with
// \t \n \r and \ escaped:
//
//	i	ok                 or  i	refused	MESSAGE
//	i	set	KEY	VALUE  (sorted by key)
//	i	delete	KEY
public class ToolArgs {
    public static void main(String[] args) throws Exception {
        try (PrintStream out = new PrintStream(new FileOutputStream(args[0]), true, "UTF-8")) {
            for (int i = 1; i < args.length; i++) {
                String[] words = new String(Files.readAllBytes(Paths.get(args[i])), StandardCharsets.UTF_8).split("\0", -1);
                if (words.length > 0 && words[words.length - 1].isEmpty()) {
                    words = Arrays.copyOf(words, words.length - 1);
                }
                String tool = words[0].replace(".sh", "");
                String[] toolArgs = Arrays.copyOfRange(words, 1, words.length);
                int n = i - 1;
                try {
                    Map<String, String> set = new TreeMap<>();
                    List<String> delete = new ArrayList<>();
                    if (tool.equals("kafka-configs")) {
                        configs(toolArgs, set, delete);
                    } else if (tool.equals("kafka-topics")) {
                        topics(toolArgs, set);
                    } else {
                        throw new IllegalArgumentException("unknown tool " + tool);
                    }
                    out.println(n + "\tok");
                    for (Map.Entry<String, String> e : set.entrySet()) {
                        out.println(n + "\tset\t" + esc(e.getKey()) + "\t" + esc(e.getValue()));
                    }
                    for (String k : delete) {
                        out.println(n + "\tdelete\t" + esc(k));
                    }
                } catch (Throwable t) {
                    while (t instanceof InvocationTargetException && t.getCause() != null) {
                        t = t.getCause();
                    }
                    out.println(n + "\trefused\t" + esc(t.getClass().getSimpleName() + ": " + t.getMessage()));
                }
            }
        }
    }

    static void configs(String[] args, Map<String, String> set, List<String> delete) throws Exception {
        String cn = classOf("org.apache.kafka.tools.ConfigCommand", "kafka.admin.ConfigCommand");
        Object opts = options(cn + "$ConfigCommandOptions", args);
        checkArgs(opts);
        Properties p = (Properties) call(cn, "parseConfigsToBeAdded", opts);
        for (String k : p.stringPropertyNames()) {
            set.put(k, p.getProperty(k));
        }
        Object del = call(cn, "parseConfigsToBeDeleted", opts);
        if (del instanceof List) {
            for (Object k : (List<?>) del) delete.add((String) k);
        } else { // a Scala 2.13 Seq: its words joined by NUL
            Method mk = Class.forName("scala.collection.IterableOnceOps").getMethod("mkString", String.class);
            String words = (String) mk.invoke(del, "\0");
            if (!words.isEmpty()) delete.addAll(Arrays.asList(words.split("\0", -1)));
        }
    }

    static void topics(String[] args, Map<String, String> set) throws Exception {
        String cn = classOf("org.apache.kafka.tools.TopicCommand", "kafka.admin.TopicCommand");
        Object opts = options(cn + "$TopicCommandOptions", args);
        checkArgs(opts);
        Object r = call(cn, "parseTopicConfigsToBeAdded", opts);
        for (Map.Entry<?, ?> e : ((Map<?, ?>) r).entrySet()) {
            set.put((String) e.getKey(), (String) e.getValue());
        }
    }

    // checkArgs runs the options' own check of the command line (private
    // in some releases).
    static void checkArgs(Object opts) throws Exception {
        Method m = opts.getClass().getDeclaredMethod("checkArgs");
        m.setAccessible(true);
        m.invoke(opts);
    }

    static String classOf(String... names) throws ClassNotFoundException {
        for (String n : names) {
            try {
                Class.forName(n);
                return n;
            } catch (ClassNotFoundException e) {
                // the other release's
            }
        }
        throw new ClassNotFoundException(String.join(" or ", names));
    }

    static Object options(String cn, String[] args) throws Exception {
        Constructor<?> k = Class.forName(cn).getDeclaredConstructor(String[].class);
        k.setAccessible(true);
        return k.newInstance((Object) args);
    }

    // call runs a tool's one-argument parser: a static method (Java, or
    // Scala's static forwarder) or the Scala object's own.
    static Object call(String cn, String name, Object arg) throws Exception {
        for (String c : new String[]{cn, cn + "$"}) {
            Class<?> k;
            try {
                k = Class.forName(c);
            } catch (ClassNotFoundException e) {
                continue;
            }
            for (Method m : k.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == 1) {
                    m.setAccessible(true);
                    Object self = Modifier.isStatic(m.getModifiers()) ? null : k.getField("MODULE$").get(null);
                    return m.invoke(self, arg);
                }
            }
        }
        throw new NoSuchMethodException(cn + "." + name);
    }

    static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }
}
