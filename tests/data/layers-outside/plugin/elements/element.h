int element_private (void);
