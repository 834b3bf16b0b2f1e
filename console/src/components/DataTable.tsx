import { Fragment, type ReactNode } from "react";

/** One column of a <DataTable>: its heading, and what each row shows in it. */
export interface Column<Row> {
  header: string;
  /** Read by screen readers only (a column of buttons). */
  hideHeader?: boolean;
  /** The cell that names its row: a row header (`<th scope="row">`), bold in compact tables. */
  rowHeader?: boolean;
  cell: (row: Row) => ReactNode;
  cellClassName?: (row: Row) => string;
}

/**
 * The console's one table: columns declared as data, one row per item, scrolling sideways on a narrow screen.
 * `detail` renders a full-width row under an item (an editor, a confirmation) when it answers something.
 */
export function DataTable<Row>({
  columns: dataColumns,
  actions,
  rows,
  rowKey,
  label,
  compact,
  rowLabel,
  detail,
}: {
  columns: Column<Row>[];
  /** A last column of buttons, its heading read by screen readers only. */
  actions?: (row: Row) => ReactNode;
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string;
  /** The table's accessible name. */
  label?: string;
  /** Dense cells, row headers in bold: the tables of records with buttons. */
  compact?: boolean;
  /** A row's accessible name, where its cells would make a poor one. */
  rowLabel?: (row: Row) => string;
  detail?: (row: Row) => ReactNode;
}) {
  const columns = actions ? [...dataColumns, { header: "Actions", hideHeader: true, cell: actions }] : dataColumns;
  return (
    <div className="table-scroll">
      <table className={compact ? "compact" : undefined} aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.hideHeader ? <span className="visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const more = detail?.(row);
            return (
              <Fragment key={rowKey(row, index)}>
                <tr aria-label={rowLabel?.(row)}>
                  {columns.map((column) =>
                    column.rowHeader ? (
                      <th key={column.header} scope="row" className={column.cellClassName?.(row)}>
                        {column.cell(row)}
                      </th>
                    ) : (
                      <td key={column.header} className={column.cellClassName?.(row)}>
                        {column.cell(row)}
                      </td>
                    ),
                  )}
                </tr>
                {more && (
                  <tr className="row-detail">
                    <td colSpan={columns.length}>{more}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
