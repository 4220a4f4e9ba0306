"""Analysis: pandas tables over the run logs and the statistics the reports stand on."""
