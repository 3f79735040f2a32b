// The kubernetes-mixin's recording rules (rules/apps.libsonnet) and the
// memory queries of its pod and namespace dashboards
// (dashboards/resources/queries/{pod,namespace}.libsonnet), from the vendored
// source (tests/data/kubernetes-mixin, unchanged), with the configuration
// packaging/dashboard/README gives for memcg_bpf's cAdvisor names. Rendered by
// tests/vm/kube-mixin.sh for the guest test kube_mixin.
//   rules.yml  the rule groups, as the mixin's lib/rules.jsonnet writes them
//   queries    "### DASHBOARD NAME" and the query's text, for every field of
//              the two query files whose name starts with "memory"
local mixin = (import 'config.libsonnet') + (import 'rules/apps.libsonnet') + {
  _config+:: {
    // remote write carries no job label: every series memcg_bpf ships has host
    cadvisorSelector: 'host=~".+"',
  },
};
local queries(dashboard, q) = [
  '### %s %s\n%s\n' % [dashboard, name, q[name](mixin._config)]
  for name in std.objectFieldsAll(q)
  if std.startsWith(name, 'memory')
];
{
  'rules.yml': std.manifestYamlDoc(mixin.prometheusRules),
  queries: std.join('', queries('pod', import 'dashboards/resources/queries/pod.libsonnet')
                        + queries('namespace', import 'dashboards/resources/queries/namespace.libsonnet')),
}
