# The mainline series, rewritten for 6.12 (sed, on every patch).
# ip_tables is IP_NF_IPTABLES there: no NETFILTER_XTABLES_LEGACY split.
s/\bIP\(6\?\)_NF_IPTABLES_LEGACY\b/IP\1_NF_IPTABLES/g
# kzalloc_obj() and kmalloc_obj() are 7.0's; 6.12 has kzalloc(sizeof()).
s/\bkzalloc_obj(\([^,()]*\), /kzalloc(sizeof(\1), /g
s/\bkmalloc_obj(\([^,()]*\), /kmalloc(sizeof(\1), /g
# Symbol namespaces became string literals in 6.13.
s/MODULE_IMPORT_NS("\([A-Za-z0-9_]*\)")/MODULE_IMPORT_NS(\1)/g
# KF_TRUSTED_ARGS is the default since 7.0; before, a kfunc says so.
s/^\([+ -]\)BTF_ID_FLAGS(func, \(bpfilter_[a-z_]*\))$/\1BTF_ID_FLAGS(func, \2, KF_TRUSTED_ARGS)/
# NETFILTER_XTABLES_LEGACY (the selftests' config) is IP_NF_IPTABLES's
# own dependency there: NETFILTER_XTABLES says the same.
s/^\([+ -]\)CONFIG_NETFILTER_XTABLES_LEGACY=y$/\1CONFIG_NETFILTER_XTABLES=y/
