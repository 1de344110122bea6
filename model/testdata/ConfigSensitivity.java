// ConfigSensitivity asks a Kafka release which config keys it knows and
// which it hides. It is kmeta's oracle for model's sensitive-config table,
// run by model's tests with a Kafka release's jars on the class path
// (java -cp <kafka libs> ConfigSensitivity.java keys|probe):
//
//   keys   prints "<RESOURCE>\t<name>\t<ConfigDef type>" for every key the
//          release defines for brokers (KafkaConfig's ConfigDef and the
//          dynamic broker ConfigDef), topics (LogConfig) and groups
//          (GroupConfig, 4.x).
//   probe  reads "<RESOURCE>\t<name>" lines (name JSON-quoted) and prints
//          "<RESOURCE>\t<name>\t<true|false>": true when
//          KafkaConfig.loggableValue hides the value, which is the same
//          test (KafkaConfig.maybeSensitive over the key's type) that
//          DescribeConfigs uses for isSensitive; "absent" when the
//          release has no such resource type.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;

public class ConfigSensitivity {
    static Object call(String cls, String method) throws Exception {
        Class<?> c = Class.forName(cls);
        if (method.startsWith("field:")) {
            return c.getField(method.substring(6)).get(null);
        }
        Method m = c.getMethod(method);
        Object target = null;
        if (!java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
            target = c.getField("MODULE$").get(null);
        }
        return m.invoke(target);
    }

    static void put(Map<String, String> out, String res, Object def) {
        if (def instanceof ConfigDef) {
            for (Map.Entry<String, ConfigDef.ConfigKey> e : ((ConfigDef) def).configKeys().entrySet()) {
                out.putIfAbsent(res + "\t" + quote(e.getKey()), e.getValue().type.name());
            }
        } else if (def instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) def).entrySet()) {
                out.putIfAbsent(res + "\t" + quote((String) e.getKey()), ((ConfigDef.ConfigKey) e.getValue()).type.name());
            }
        }
    }

    static Object first(String[][] candidates) {
        for (String[] c : candidates) {
            try {
                return call(c[0], c[1]);
            } catch (Throwable t) {
                // not in this release
            }
        }
        return null;
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                b.append('\\').append(ch);
            } else if (ch < 0x20 || ch > 0x7e) {
                b.append(String.format("\\u%04x", (int) ch));
            } else {
                b.append(ch);
            }
        }
        return b.append('"').toString();
    }

    static String unquote(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i < s.length() - 1; i++) {
            char ch = s.charAt(i);
            if (ch == '\\') {
                char n = s.charAt(++i);
                if (n == 'u') {
                    b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    i += 4;
                } else {
                    b.append(n);
                }
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("keys")) {
            Map<String, String> out = new TreeMap<>();
            put(out, "BROKER", call("kafka.server.KafkaConfig", "configDef"));
            put(out, "BROKER", first(new String[][] {
                {"kafka.server.DynamicConfig$Broker$", "configKeys"},
                {"kafka.server.DynamicConfig$Broker$", "brokerConfigDef"},
                {"org.apache.kafka.server.config.DynamicConfig$Broker", "configKeys"}}));
            put(out, "TOPIC", first(new String[][] {
                {"org.apache.kafka.storage.internals.log.LogConfig", "configDefCopy"},
                {"kafka.log.LogConfig", "configDefCopy"}}));
            put(out, "GROUP", first(new String[][] {
                {"org.apache.kafka.coordinator.group.GroupConfig", "field:CONFIG_DEF"},
                {"org.apache.kafka.coordinator.group.GroupConfig", "configDef"}}));
            for (Map.Entry<String, String> e : out.entrySet()) {
                System.out.println(e.getKey() + "\t" + e.getValue());
            }
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            int tab = line.indexOf('\t');
            String res = line.substring(0, tab);
            String name = unquote(line.substring(tab + 1));
            ConfigResource.Type type;
            try {
                type = ConfigResource.Type.valueOf(res);
            } catch (IllegalArgumentException e) {
                System.out.println(res + "\t" + quote(name) + "\tabsent"); // no such resource type in this release
                continue;
            }
            String shown = kafka.server.KafkaConfig.loggableValue(type, name, "v");
            System.out.println(res + "\t" + quote(name) + "\t" + !"v".equals(shown));
        }
    }
}
